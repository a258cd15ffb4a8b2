package deep

func kept() {}
