package tools

// ReadOnlyTools returns the tier-0 file tools over ws in their fixed order:
// read_file, list_dir, grep, glob. The order is part of the prompt prefix,
// so it never changes.
func ReadOnlyTools(ws *Workspace) []Tool {
	return []Tool{NewReadFile(ws), NewListDir(ws), NewGrep(ws), NewGlob(ws)}
}
