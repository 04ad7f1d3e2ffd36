package cliflag

// Refusal is a group of a C tool's options that hpcbench refuses, with a
// message and exit status 2, for one reason; commands list them in their
// help from the same tables their parsers refuse them from.
type Refusal struct {
	Names []string // as a user types them: "-B", "--gpuDirect"
	Why   string
}
