// An editor played by the official ACP TypeScript SDK: it starts `tern acp`,
// runs the steps of a plan and writes what it saw as JSON, for the Go test
// (cmd/tern/acp_e2e_test.go) to check.
//
//   node client.mjs PLAN.json REPORT.json
//
// The plan: {"command": [argv], "cwd": dir, "buffers": {path: text},
// "steps": [{"op": ...}, ...]}. Ops: initialize, new, prompt (text;
// answers: the options chosen for each permission request, in order;
// cancelAfter: an update kind to cancel at), mode (mode), list, load,
// restart (a new tern process). Buffers are the editor's unsaved files:
// fs/read_text_file serves them, fs/write_text_file changes them (never the
// disk), and terminal/* runs commands as child processes.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [planPath, reportPath] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planPath, "utf8"));
const abs = (p) => (isAbsolute(p) ? p : join(plan.cwd, p));
const buffers = new Map(Object.entries(plan.buffers ?? {}).map(([p, t]) => [abs(p), t]));
const report = { steps: [], stderr: "" };
let step = null; // the step being run: where observations go
const note = (key, value) => step && (step[key] ??= []).push(value);
let answers = []; // permission answers left for the running prompt
let onUpdate = null; // a prompt's hook on its updates

const terminals = new Map();
let terminalSeq = 0;

function handlers(app) {
  return app
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      note("updates", params.update);
      onUpdate?.(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      note("permissions", params);
      const kind = answers.shift() ?? "reject_once";
      const option = params.options.find((o) => o.kind === kind);
      return { outcome: option ? { outcome: "selected", optionId: option.optionId } : { outcome: "cancelled" } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      note("reads", params.path);
      return { content: buffers.get(params.path) ?? readFileSync(params.path, "utf8") };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      note("writes", { path: params.path, content: params.content });
      buffers.set(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, ({ params }) => {
      const id = `term-${++terminalSeq}`;
      const env = { ...process.env };
      for (const v of params.env ?? []) env[v.name] = v.value;
      const child = spawn(params.command, params.args ?? [], { cwd: params.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
      const t = { output: "", exit: null };
      child.stdout.on("data", (d) => (t.output += d));
      child.stderr.on("data", (d) => (t.output += d));
      t.exited = new Promise((resolve) => child.on("close", (code, signal) => resolve((t.exit = { exitCode: code, signal }))));
      t.child = child;
      terminals.set(id, t);
      note("terminals", { command: params.command, args: params.args, cwd: params.cwd });
      return { terminalId: id };
    })
    .onRequest(acp.methods.client.terminal.waitForExit, async ({ params }) => terminals.get(params.terminalId).exited)
    .onRequest(acp.methods.client.terminal.output, ({ params }) => {
      const t = terminals.get(params.terminalId);
      return { output: t.output, truncated: false, exitStatus: t.exit ?? undefined };
    })
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => {
      terminals.get(params.terminalId).child.kill("SIGKILL");
      return {};
    })
    .onRequest(acp.methods.client.terminal.release, ({ params }) => {
      terminals.get(params.terminalId)?.child.kill("SIGKILL");
      terminals.delete(params.terminalId);
      return {};
    });
}

// start runs tern and connects the SDK's client to its stdio.
function start() {
  const [cmd, ...args] = plan.command;
  const child = spawn(cmd, args, { cwd: plan.cwd, stdio: ["pipe", "pipe", "pipe"] });
  child.stderr.on("data", (d) => (report.stderr += d));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const exited = new Promise((resolve) => child.on("close", (code) => resolve(code)));
  const conn = handlers(acp.client({ name: "tern-e2e" })).connect(stream);
  return { child, conn, exited };
}

let tern = start();
let sessionId = null;
const errorOf = (e) => ({ code: e.code, message: e.message, data: e.data });

for (const s of plan.steps) {
  step = { op: s.op, ...s };
  report.steps.push(step);
  const agent = tern.conn.agent;
  try {
    switch (s.op) {
      case "initialize":
        step.result = await agent.request(acp.methods.agent.initialize, {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
          clientInfo: { name: "tern-e2e", version: "1" },
        });
        break;
      case "new":
        step.result = await agent.request(acp.methods.agent.session.new, { cwd: plan.cwd, mcpServers: [] });
        sessionId = step.result.sessionId;
        break;
      case "prompt": {
        answers = [...(s.answers ?? [])];
        let cancelled = false;
        onUpdate = (u) => {
          if (s.cancelAfter && !cancelled && u.sessionUpdate === s.cancelAfter) {
            cancelled = true;
            agent.notify(acp.methods.agent.session.cancel, { sessionId });
          }
        };
        step.result = await agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: s.text }, ...(s.files ?? []).map((f) => ({ type: "resource_link", name: f, uri: "file://" + abs(f) }))],
        });
        onUpdate = null;
        break;
      }
      case "mode":
        step.result = await agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: s.mode });
        break;
      case "list":
        step.result = await agent.request(acp.methods.agent.session.list, { cwd: plan.cwd });
        break;
      case "load":
        step.result = await agent.request(acp.methods.agent.session.load, { sessionId, cwd: plan.cwd, mcpServers: [] });
        break;
      case "restart":
        tern.child.stdin.end();
        step.exitCode = await tern.exited;
        tern = start();
        break;
      default:
        throw new Error(`unknown op ${s.op}`);
    }
  } catch (e) {
    step.error = errorOf(e);
  }
}
step = null;
tern.child.stdin.end();
report.exitCode = await tern.exited;
report.buffers = Object.fromEntries(buffers);
writeFileSync(reportPath, JSON.stringify(report, null, 2));
process.exit(0);
