package fabtest

// Pair is two endpoints of an all-pairs run, by their index in the
// endpoint list, A < B; A initiates.
type Pair struct{ A, B int }

// Rounds returns the rounds of a round-robin tournament among n endpoints
// (the circle method): every pair exactly once, no endpoint twice in one
// round, n-1 rounds for even n and n for odd n (one endpoint rests in
// each). So the tests of one round can all run at once without any
// endpoint carrying two.
func Rounds(n int) [][]Pair {
	if n < 2 {
		return nil
	}
	m := n
	if m%2 == 1 {
		m++ // a bye: whoever meets index n rests
	}
	// Seat 0 stays; the others turn one seat per round.
	seats := make([]int, m)
	for i := range seats {
		seats[i] = i
	}
	rounds := make([][]Pair, 0, m-1)
	for range m - 1 {
		var round []Pair
		for i := range m / 2 {
			a, b := seats[i], seats[m-1-i]
			if a >= n || b >= n {
				continue
			}
			round = append(round, Pair{min(a, b), max(a, b)})
		}
		rounds = append(rounds, round)
		last := seats[m-1]
		copy(seats[2:], seats[1:m-1])
		seats[1] = last
	}
	return rounds
}
