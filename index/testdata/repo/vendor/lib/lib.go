package lib

// Vendored is somebody else's code.
func Vendored() {}
