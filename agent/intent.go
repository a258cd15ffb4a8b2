package agent

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/ternhq/tern/models"
	"github.com/ternhq/tern/prompts"
	"github.com/ternhq/tern/tools"
)

// Small models often say what they will do instead of doing it: "I'll read
// the file…" and the reply ends. Taking that as the final answer ends the
// turn with nothing done. The agent nudges once per turn toward the call; a
// second such reply is taken as the answer.

// announce matches a sentence that announces a tool-like action, in the
// languages small models most often answer in.
// "We will" announces only when it opens the sentence ("So we need to
// call…"): "In the future we will update the API" is a plan.
var announce = regexp.MustCompile(`(?i)(?:(?:\b(?:i'll|i will|i'm going to|i am going to|let me|let's|let us|i need to|i'm gonna|i shall|i must|i have to|i should|allow me to|next step:?|first step:?)|(?:^|[.!?;:]\s+|\n)(?:(?:so|now|ok(?:ay)?|first|then|next|alright),?\s+)?(?:we need to|we'll|we will|we should|we must|we have to))\s+(?:\w+\s+){0,3}?(?:read|open|look|check|search|find|grep|list|run|execute|create|write|edit|update|modify|fix|change|inspect|examine|view|explore|scan|call|use|start|add|remove|delete|rename|replace|implement|test|build|install|fetch|see|verify|analy[sz]e|review|investigate|browse|patch|apply|save|make|output|emit|post|send|query|retrieve|download)\b` +
	`|\b(?:voy a|vamos a|déjame|permíteme|je vais|laissez-moi|laisse-moi|ich werde|lass mich|lassen sie mich|vou|deixe-me|deixa eu|lasciami|fammi|vado a|adesso|ora|ik ga|laat me|ik zal|tôi sẽ|để tôi|saya akan|biarkan saya|pozwól, że)\s+\p{L}+` +
	`|\p{L}+(?:acağım|eceğim)\b|(?:^|\s)(?:sprawdzę|przeczytam|zobaczę|uruchomię)` +
	`|(?:我将|我会|让我|我来|我先|接下来我|首先我|现在我|我需要)` +
	`|(?:します|しましょう|してみます|確認します|読みます|見てみます)` +
	`|(?:сейчас я|я прочитаю|давайте|позвольте мне|я посмотрю|я проверю|мне нужно)` +
	`|(?:하겠습니다|보겠습니다|확인해 ?보겠습니다))`)

// progress matches a sentence that reports an action as under way,
// "Reading main.go now…", "Checking the directory structure...": it
// counts only as the last words of a reply that trails off or says now.
var progress = regexp.MustCompile(`(?i)^(?:now\s+|first,?\s+|ok(?:ay)?,?\s+)?(?:reading|opening|checking|searching|grepping|looking|listing|running|executing|calling|inspecting|examining|scanning|exploring|writing|editing|creating|fetching|viewing|analy[sz]ing|reviewing|investigating)\b`)

// trailsOff matches the end of a reply that announces and stops: an
// ellipsis, a colon, or "now".
var trailsOff = regexp.MustCompile(`(?i)(?:\.\.\.|…|:|\bnow[.!]?)\s*$`)

// announcesAction reports whether a reply without calls ends by saying
// what the model is about to do: its last sentence announces an action, or
// a short reply does anywhere near its end.
func announcesAction(text string) bool {
	text = strings.TrimSpace(text)
	if text == "" {
		return false
	}
	if last := lastSentence(text); announce.MatchString(last) || trailsOff.MatchString(text) && progress.MatchString(strings.TrimSpace(last)) {
		return true
	}
	tail := text
	if r := []rune(text); len(r) > 240 {
		tail = string(r[len(r)-240:])
	}
	return len(text) <= 400 && announce.MatchString(tail)
}

// sentenceEnd splits prose into sentences.
var sentenceEnd = regexp.MustCompile(`[.!?。！？]\s+|\n+`)

// lastSentence is the last sentence of text.
func lastSentence(text string) string {
	parts := sentenceEnd.Split(strings.TrimRight(text, " .!?。！？:…"), -1)
	return parts[len(parts)-1]
}

// offers reports whether turn t's next request offers the tool named name.
func (a *Agent) offers(t *turn, name string) bool {
	for _, tl := range a.offered(t, a.tools.All()) {
		if tl.Spec().Name == name {
			return true
		}
	}
	return false
}

// intentNudge returns the nudge for a reply that announces an action
// instead of calling a tool, once per turn; ok is false when the reply is
// to be taken as the answer. (A reply that is only a command is read as a
// call of the tool that runs commands: models.ReadReply.)
func (a *Agent) intentNudge(t *turn, text string) (n prompts.Nudge, ok bool) {
	if t.guard.intentNudged || len(a.tools.All()) == 0 {
		return n, false
	}
	if !announcesAction(text) {
		return n, false
	}
	t.guard.intentNudged = true
	return prompts.Nudge{Kind: prompts.NudgeIntent, Example: a.intentExample(t, text)}, true
}

// intentVerbs map what a reply says it will do to the tool that does it.
var intentVerbs = []struct {
	re   *regexp.Regexp
	tool string
}{
	{regexp.MustCompile(`(?i)\b(?:read|open|view|look|check|see|inspect|examine|leer|lire|lesen|ler|leggere)\b|读|読|查看|прочита|посмотр|읽`), "read_file"},
	{regexp.MustCompile(`(?i)\b(?:search|grep|find)\b|搜索|查找|検索|найд|поиск|검색`), "grep"},
	{regexp.MustCompile(`(?i)\b(?:list|explore|browse)\b|列出|一覧|список|목록`), "list_dir"},
	{regexp.MustCompile(`(?i)\b(?:run|execute|test|build|install)\b|运行|執行|実行|запущ|실행`), "run_command"},
	{regexp.MustCompile(`(?i)\b(?:edit|fix|change|update|modify|replace|patch|rename)\b|修改|修正|編集|измен|수정`), "edit_file"},
	{regexp.MustCompile(`(?i)\b(?:create|write|save)\b|创建|写|作成|созда|작성`), "write_file"},
}

// fileMention is a file name mentioned in prose: main.go, `cmd/tern/ask.go`.
var fileMention = regexp.MustCompile("`?([\\w./\\-]+\\.[A-Za-z][\\w]{0,5})`?")

// intentExample is one call doing what the reply announced: of the tool
// its verb names when that tool is offered, with the file it mentions.
func (a *Agent) intentExample(t *turn, text string) string {
	tail := text
	if r := []rune(text); len(r) > 240 {
		tail = string(r[len(r)-240:])
	}
	for _, v := range intentVerbs {
		if !v.re.MatchString(tail) || !a.offers(t, v.tool) {
			continue
		}
		tl, _ := a.tools.Get(v.tool)
		args := string(models.ExampleArgs(tl.Spec()))
		if m := fileMention.FindAllStringSubmatch(text, -1); len(m) > 0 {
			file, _ := json.Marshal(m[len(m)-1][1])
			args = strings.Replace(args, `"path": "main.go"`, `"path": `+string(file), 1)
		}
		return models.FormatCall(a.callFormat(), v.tool, []byte(args))
	}
	return a.exampleCall("")
}

// refuseCut answers every call of a reply cut at the output limit with a
// correction instead of running it: its last call, at least, is not what
// the model meant to send.
func refuseCut(plan callPlan) {
	for i := range plan.calls {
		plan.calls[i].answerAhead(tools.Result{IsError: true, Summary: InvalidCall,
			Output: "Not run: your reply was cut off at the output limit while you were writing this call, so its arguments may be incomplete. Send the call again, complete; if its content is long, do the work in smaller steps (a smaller edit, or the file in parts)."})
	}
}
