package openai

import (
	"fmt"
	"strings"

	"github.com/ternhq/tern/models"
)

// ChooseModel picks the model among those the server lists: the one
// asked for, when the server serves it; else the first one listed that is
// not an embedding model, a loaded one first (LM Studio lists every model
// downloaded), saying so when there were others. llama-server serves one model under any name,
// so a name it does not list is used as given. why says how the model
// was chosen, for the user.
func ChooseModel(want string, list []Model) (name, why string, err error) {
	if want != "" {
		for _, m := range list {
			if m.ID == want {
				return m.ID, "requested", nil
			}
		}
		if len(list) == 1 && list[0].OwnedBy == "llamacpp" {
			return want, "requested", nil
		}
		return "", "", fmt.Errorf("%w: %s", models.ErrModelNotFound, want)
	}
	var chat, loaded []string
	for _, m := range list {
		if !strings.Contains(strings.ToLower(m.ID), "embed") {
			chat = append(chat, m.ID)
			if m.Loaded {
				loaded = append(loaded, m.ID)
			}
		}
	}
	switch {
	case len(chat) == 0:
		return "", "", models.ErrNoChatModel
	case len(chat) == 1:
		return chat[0], "the server's only chat model", nil
	case len(loaded) == 1:
		return loaded[0], "the chat model the server has loaded; --model chooses another", nil
	case len(loaded) > 1:
		return loaded[0], fmt.Sprintf("the first of the %d chat models the server has loaded; --model chooses another", len(loaded)), nil
	}
	return chat[0], fmt.Sprintf("the first of the %d chat models the server lists; --model chooses another", len(chat)), nil
}
