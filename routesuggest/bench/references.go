package bench

// Reference is a published value an instance is measured against.
type Reference struct {
	// Value is the optimal or best-known objective.
	Value float64
	// Source says where it comes from, and how sure it is.
	Source string
}

// Sources of the TOPTW references. The team values (m = 2, 3, 4) are the
// best-known scores of the TOPTW literature for the Solomon instances; the
// papers' tables could not be opened from the machine this was written on,
// so each is marked by how it is known to hold.
const (
	sourceRighiniSalani = "optimal: Righini & Salani (2009), Computers & OR 36(4), output logs in JmGarzon/TOPTW-solver"
	sourceLabadie       = "best known: Labadie et al. (2012), EJOR 220(1), via hm4uc/TOPTW-HybridGA's transcription"
	sourceAllScores     = "optimal: every customer's score (the sum of all scores bounds any plan)"
	sourceLiterature    = "best known in the TOPTW literature (Vansteenwegen et al. 2009, Computers & OR 36(12); Montemanni & Gambardella 2009; Labadie et al. 2012), transcribed from memory and reached by this solver too"
	sourceUnconfirmed   = "best known in the TOPTW literature as transcribed from memory; not re-checked against the papers, and not reached by this solver"
	sourceThisSolver    = "a plan this solver found (an earlier version, seed 1) and bench.VerifyTeam verified; it beats the 1,252 transcribed from memory, so the literature's value could not be confirmed"
)

// TOPTWReferences are the reference scores of the TOPTW instances in
// routesuggest/testdata for m = 1 to 4 vehicles (index m).
var TOPTWReferences = map[string][5]Reference{
	"c101":  {{}, {320, sourceRighiniSalani}, {590, sourceLiterature}, {810, sourceLiterature}, {1020, sourceLiterature}},
	"r101":  {{}, {198, sourceRighiniSalani}, {349, sourceLiterature}, {484, sourceLiterature}, {611, sourceLiterature}},
	"rc101": {{}, {219, sourceRighiniSalani}, {427, sourceLiterature}, {621, sourceLiterature}, {811, sourceLiterature}},
	"c201":  {{}, {870, sourceLabadie}, {1460, sourceUnconfirmed}, {1810, sourceAllScores}, {1810, sourceAllScores}},
	"r201":  {{}, {797, sourceLabadie}, {1256, sourceThisSolver}, {1441, sourceUnconfirmed}, {1458, sourceAllScores}},
}
