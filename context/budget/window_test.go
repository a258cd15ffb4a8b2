package budget

import "testing"

func TestWindowSize(t *testing.T) {
	for _, c := range []struct{ numCtx, limit, want int }{
		{8192, 0, 8192},
		{8192, 2048, 2048},
		{8192, 8192, 8192},
		{8192, 16384, 8192}, // a share cannot pass the served window
	} {
		if got := (Window{NumCtx: c.numCtx, Limit: c.limit}).Size(); got != c.want {
			t.Errorf("Window{NumCtx: %d, Limit: %d}.Size() = %d, want %d", c.numCtx, c.limit, got, c.want)
		}
	}
}

func TestWindowPart(t *testing.T) {
	cal := Calibration{Factor: 1.25}
	for _, c := range []struct {
		numCtx, limit int
		share         float64
		least, want   int
	}{
		{8192, 0, 0.5, 3072, 4096},
		{8192, 0, 0.25, 3072, 3072},   // the least wins over a small share
		{2048, 0, 0.5, 3072, 2048},    // but never past the window
		{8192, 4096, 0.5, 1024, 2048}, // a part of a part
	} {
		w := Window{NumCtx: c.numCtx, Limit: c.limit, Reserve: 999, Calibration: cal}
		p := w.Part(c.share, c.least)
		if p.Size() != c.want || p.NumCtx != c.numCtx || p.Reserve != 0 || p.Calibration != cal {
			t.Errorf("%+v.Part(%v, %d) = %+v, want size %d in the same served window and calibration, no reserve",
				w, c.share, c.least, p, c.want)
		}
	}
}

func TestWindowRoomShareAndConversions(t *testing.T) {
	w := Window{NumCtx: 8192, Limit: 4096, Reserve: 1000, Calibration: Calibration{Factor: 1.25}}
	// Room is in the model's tokens: the fixed part (tern's 800) counts 1000.
	if got := w.Room(800); got != 4096-1000-1000 {
		t.Errorf("Room(800) = %d, want %d", got, 4096-1000-1000)
	}
	if got := w.Share(0.5); got != 2048 {
		t.Errorf("Share(0.5) = %d, want 2048 (of the part the prompts may fill)", got)
	}
	if got := w.Model(1001); got != 1252 {
		t.Errorf("Model(1001) = %d, want 1252 (rounded up)", got)
	}
	if got := w.Tern(1250); got != 1000 {
		t.Errorf("Tern(1250) = %d, want 1000", got)
	}
	if got := w.Tern(-5); got != 0 {
		t.Errorf("Tern(-5) = %d, want 0", got)
	}
	var zero Window
	if zero.Model(1000) != 1000 || zero.Tern(1000) != 1000 {
		t.Error("an uncalibrated window must not convert")
	}
}

func TestWindowObserveUsesItsWindow(t *testing.T) {
	w := Window{NumCtx: 4096, Reserve: 819}
	// The server counted the whole served window: the prompt was cut.
	if v := w.Observe(3000, 4096); !v.Truncated {
		t.Error("a reply counting the whole window was not taken as truncated")
	}
	if w.Calibration.Samples != 1 || w.Calibration.Value() <= 1 {
		t.Errorf("Observe did not learn into the window's calibration: %+v", w.Calibration)
	}
	if DefaultReserve(4096) != 819 || DefaultReserve(1024) != 512 {
		t.Errorf("DefaultReserve(4096) = %d, DefaultReserve(1024) = %d", DefaultReserve(4096), DefaultReserve(1024))
	}
}
