//go:build ignore

// Command derive picks the 200 Monaco addresses of addresses.json from the
// extract's buildings (mapped as closed ways): the centroid of every building whose centroid lies
// inside Monaco's national boundary, sorted by OpenStreetMap way id, then 200
// evenly spaced in that order. It reads the GeoJSON sequences that osmium
// exports with the attributes type and id (see README.md):
//
//	go run derive.go buildings.geojsonseq boundary.geojsonseq > addresses.json
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"sort"
)

const want = 200

type feature struct {
	Geometry struct {
		Type        string           `json:"type"`
		Coordinates [][][][2]float64 `json:"coordinates"` // MultiPolygon
	} `json:"geometry"`
	Properties map[string]any `json:"properties"`
}

// Address is one line of addresses.json.
type Address struct {
	OSMWay    int64   `json:"osmWay"`
	Name      string  `json:"name,omitempty"`
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
}

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: go run derive.go buildings.geojsonseq boundary.geojsonseq")
	}
	var monaco [][][2]float64
	for _, f := range read(os.Args[2]) {
		if f.Properties["name"] == "Monaco" && fmt.Sprint(f.Properties["admin_level"]) == "2" {
			for _, poly := range f.Geometry.Coordinates {
				monaco = append(monaco, poly[0])
			}
		}
	}
	if len(monaco) == 0 {
		log.Fatal("no boundary of Monaco (admin_level 2) in ", os.Args[2])
	}
	var all []Address
	for _, f := range read(os.Args[1]) {
		id, ok := f.Properties["@id"].(float64)
		if f.Properties["@type"] != "way" || !ok || len(f.Geometry.Coordinates) == 0 {
			continue // buildings mapped as relations have no single way
		}
		lon, lat := centroid(f.Geometry.Coordinates[0][0])
		if !inside(monaco, lon, lat) {
			continue
		}
		name, _ := f.Properties["name"].(string)
		all = append(all, Address{OSMWay: int64(id), Name: name, Latitude: round7(lat), Longitude: round7(lon)})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].OSMWay < all[j].OSMWay })
	if len(all) < want {
		log.Fatalf("only %d buildings inside Monaco", len(all))
	}
	picked := make([]Address, want)
	for i := range picked {
		picked[i] = all[i*len(all)/want]
	}
	out, err := json.MarshalIndent(picked, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", out)
	log.Printf("%d buildings inside Monaco, %d picked", len(all), want)
}

func read(path string) []feature {
	data, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	var fs []feature
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := bytes.TrimLeft(sc.Bytes(), "\x1e")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var f feature
		if err := json.Unmarshal(line, &f); err != nil {
			continue // not a polygon feature
		}
		fs = append(fs, f)
	}
	return fs
}

// centroid is the area centroid of a ring (lon, lat treated as planar: the
// buildings are a few metres across).
func centroid(ring [][2]float64) (lon, lat float64) {
	var a, cx, cy float64
	for i := 0; i+1 < len(ring); i++ {
		p, q := ring[i], ring[i+1]
		c := p[0]*q[1] - q[0]*p[1]
		a += c
		cx += (p[0] + q[0]) * c
		cy += (p[1] + q[1]) * c
	}
	if a == 0 {
		return ring[0][0], ring[0][1]
	}
	return cx / (3 * a), cy / (3 * a)
}

// inside reports whether (lon, lat) is inside any of the rings (even-odd rule).
func inside(rings [][][2]float64, lon, lat float64) bool {
	for _, ring := range rings {
		in := false
		for i, j := 0, len(ring)-1; i < len(ring); j, i = i, i+1 {
			p, q := ring[i], ring[j]
			if (p[1] > lat) != (q[1] > lat) && lon < (q[0]-p[0])*(lat-p[1])/(q[1]-p[1])+p[0] {
				in = !in
			}
		}
		if in {
			return true
		}
	}
	return false
}

func round7(x float64) float64 {
	return float64(int64(x*1e7+0.5*sign(x))) / 1e7
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}
