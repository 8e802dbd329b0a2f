module github.com/integration-connect/connect

go 1.26.8
