package backend

import (
	"fmt"

	"github.com/ternhq/tern/cmd/tern/internal/config"
	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
)

// Profile returns the model's family profile with the config's
// overrides, checked, so that a typo in [profiles] is an error.
func Profile(info models.ModelInfo, cfg config.Config) (models.Profile, error) {
	p := models.ProfileFor(info, cfg.Profiles)
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("config: %w", err)
	}
	if err := prompts.CheckProfile(p); err != nil {
		return p, fmt.Errorf("config: %w", err)
	}
	return p, nil
}
