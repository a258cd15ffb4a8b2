package calc

// Total adds up the numbers of a bill.
func Total(xs []int) int {
	sum := 0
	for _, x := range xs {
		sum += x
	}
	return sum
}
