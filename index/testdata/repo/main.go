// Command shop runs the example shop.
package main

import "fmt"

// main prints a greeting.
func main() {
	fmt.Println(greeting("shop"))
}

// greeting builds the welcome line shown on start.
func greeting(name string) string {
	return "welcome to " + name
}
