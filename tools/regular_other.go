//go:build !unix

package tools

const oNonblock = 0
