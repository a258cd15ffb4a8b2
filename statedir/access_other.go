//go:build !unix

package statedir

// writable is true where tern cannot ask the kernel; creating the
// directory then says.
func writable(string) bool { return true }

func isReadOnlyFS(error) bool { return false }
