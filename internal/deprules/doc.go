// Package deprules keeps the package layout's dependency rules
// (docs/architecture.md, "Dependency rules"): its test reads the import
// graph from go list -deps and fails, naming the importer, the imported
// package and the rule, when an import breaks one. The package has no
// code of its own besides the rules: Check works on any graph, so that a
// test can show each rule catching the import it forbids.
package deprules
