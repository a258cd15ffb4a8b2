package session

import (
	"path/filepath"
	"testing"
)

func TestCalibrationIsSharedAcrossSessions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tern.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCalibration(t.Context(), "qwen3:8b", 1.18, 7); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCalibration(t.Context(), "qwen3:8b", 1.21, 8); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// A new process, a new session: the model is still calibrated.
	s, err = Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f, n, ok, err := s.Calibration(t.Context(), "qwen3:8b")
	if err != nil || !ok || f != 1.21 || n != 8 {
		t.Errorf("Calibration = %v, %d, %v, %v; want 1.21 from 8 replies", f, n, ok, err)
	}
	if _, _, ok, err := s.Calibration(t.Context(), "llama3.2:3b"); ok || err != nil {
		t.Errorf("an unseen model has a calibration (%v, %v)", ok, err)
	}
}
