"""The real hosts against a loopback model stub: fixtures that find the host binaries, run the
stub (in a network namespace with only loopback where the machine allows one), and build a
world — a HOME, host folders, a MEMVET_HOME and workspaces — whose commands run as real
processes with an explicit environment (nothing leaks in from the test process).

The binaries come from `.ci/install-hosts` (`.cache/hosts/pinned`, or `.cache/hosts/latest`
with MEMVET_HOSTS=latest), or from MEMVET_HOSTS_BIN (a folder holding `claude` and `codex`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
STUB = Path(__file__).with_name("model_stub.py")
HOST_TIMEOUT = 150  # seconds per host run: a hung host fails its test instead of the suite
# (room for a loaded machine: both hosts of a world and both worlds of the loop run at once)


def host_bin_dir() -> Path:
    if os.environ.get("MEMVET_HOSTS_BIN"):
        return Path(os.environ["MEMVET_HOSTS_BIN"])
    flavour = "latest" if os.environ.get("MEMVET_HOSTS") == "latest" else "pinned"
    return REPO / ".cache" / "hosts" / flavour / "node_modules" / ".bin"


@pytest.fixture(scope="session")
def host_bins() -> dict[str, Path]:
    where = host_bin_dir()
    bins = {"claude": where / "claude", "codex": where / "codex"}
    missing = [name for name, path in bins.items() if not os.access(path, os.X_OK)]
    if missing and os.environ.get("MEMVET_HOSTS_REQUIRED"):
        pytest.fail(
            f"real host binaries absent ({', '.join(missing)} in {where}) although "
            "MEMVET_HOSTS_REQUIRED is set: .ci/install-hosts did not install them"
        )
    if missing:
        pytest.skip(
            f"real host binaries absent ({', '.join(missing)} in {where}); "
            "run .ci/install-hosts (CI does)"
        )
    if not shutil.which("git"):
        pytest.skip("git is needed for the workspaces")
    return bins


def _netns_possible() -> bool:
    if os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("nsenter")):
        return False
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    return probe.returncode == 0


class Stub:
    """The stub process and its files; `wrap` puts a command into the stub's network."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.netns = _netns_possible()
        argv = [sys.executable, str(STUB), str(directory)]
        if self.netns:  # a namespace with loopback only: nothing can reach the real providers
            argv = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *argv]
        self.proc = subprocess.Popen(
            argv, stdout=subprocess.DEVNULL, stderr=open(directory / "stub.err", "w")
        )
        deadline = time.monotonic() + 10
        while not (directory / "port").exists():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"model stub did not start: {(directory / 'stub.err').read_text()}"
                )
            time.sleep(0.02)
        self.url = f"http://127.0.0.1:{(directory / 'port').read_text()}"

    def wrap(self, argv: list[str]) -> list[str]:
        return (
            ["nsenter", f"--net=/proc/{self.proc.pid}/ns/net", "--", *argv] if self.netns else argv
        )

    def script(self, rules: list[dict]) -> None:
        (self.dir / "script.json").write_text(json.dumps(rules))

    def requests(self) -> list[dict]:
        try:
            text = (self.dir / "requests.jsonl").read_text()
        except FileNotFoundError:
            return []
        # Complete lines only: the other host of the world may be writing one right now.
        return [json.loads(line) for line in text.split("\n")[:-1]]

    def clear(self) -> None:
        (self.dir / "requests.jsonl").unlink(missing_ok=True)

    def requests_since(self, mark: int, path_part: str) -> list[dict]:
        """Requests after the first `mark` whose path holds `path_part`: the two hosts of a
        world may run at the same time, each reading its own API's requests."""
        return [r for r in self.requests()[mark:] if path_part in r["path"]]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


CODEX_PROVIDER = """model = "gpt-5.5"
model_provider = "stub"

[model_providers.stub]
name = "loopback model stub"
base_url = "{url}/v1"
env_key = "STUB_API_KEY"
wire_api = "responses"

[features]
# Quiet: no plugin marketplace traffic.
plugins = false
remote_plugin = false
"""


class World:
    """One user's machine: HOME, the host folders (default places, or CLAUDE_CONFIG_DIR and
    CODEX_HOME elsewhere), MEMVET_HOME and two git workspaces."""

    def __init__(self, root: Path, stub: Stub, bins: dict[str, Path], custom_folders: bool) -> None:
        self.root, self.stub, self.bins = root, stub, bins
        stub.script([])
        self.home = root / "home"
        self.claude_dir = root / "claude-config" if custom_folders else self.home / ".claude"
        self.codex_dir = root / "codex-home" if custom_folders else self.home / ".codex"
        self.memvet_home = root / "memvet"
        self.env = {
            "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(self.home),
            "MEMVET_HOME": str(self.memvet_home),
            "XDG_CONFIG_HOME": str(root / "xdg-config"),
            "XDG_DATA_HOME": str(root / "xdg-data"),
            "XDG_RUNTIME_DIR": str(root / "xdg-run"),
            "LANG": "C.UTF-8",
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            "ANTHROPIC_BASE_URL": stub.url,
            "ANTHROPIC_API_KEY": "sk-ant-stub",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "STUB_API_KEY": "sk-stub",
            "NO_COLOR": "1",
            # Claude Code gives an MCP server this long (ms) to connect; `memvet mcp` needs
            # seconds on a loaded machine (the SDK's import), more with both worlds playing.
            # (Whether a session waits for it: `claude_session(wait_for_mcp=True)`.)
            "MCP_TIMEOUT": "120000",
        }
        if custom_folders:
            self.env |= {
                "CLAUDE_CONFIG_DIR": str(self.claude_dir),
                "CODEX_HOME": str(self.codex_dir),
            }
        for path in (self.home, self.codex_dir, root / "xdg-run"):
            path.mkdir(parents=True, exist_ok=True)
        (self.codex_dir / "config.toml").write_text(CODEX_PROVIDER.format(url=stub.url))
        self.workspace, self.other = self._git_workspace("app"), self._git_workspace("other")

    def _git_workspace(self, name: str) -> Path:
        path = self.root / "src" / name
        path.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(path)], check=True, env=self.env)
        return path.resolve()

    def run(
        self,
        argv: list[str],
        cwd: Path | None = None,
        stdin: str = "",
        check: bool = True,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            argv,
            cwd=cwd or self.workspace,
            env=self.env | (env or {}),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=HOST_TIMEOUT,
        )
        if check and done.returncode != 0:
            raise AssertionError(
                f"{argv[:4]} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
            )
        return done

    def memvet(
        self, *args: str, cwd: Path | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        return self.run(
            [sys.executable, "-m", "memvet.install.launcher", *args], cwd=cwd, check=check
        )

    def memvet_json(self, *args: str, cwd: Path | None = None, check: bool = True) -> dict:
        return json.loads(self.memvet(*args, "--json", cwd=cwd, check=check).stdout)

    def claude(
        self, *args: str, cwd: Path | None = None, check: bool = True, env: dict | None = None
    ) -> subprocess.CompletedProcess[str]:
        return self.run(
            self.stub.wrap([str(self.bins["claude"]), *args]), cwd=cwd, check=check, env=env
        )

    def codex(
        self, *args: str, cwd: Path | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        return self.run(self.stub.wrap([str(self.bins["codex"]), *args]), cwd=cwd, check=check)

    def claude_session(
        self, prompt: str, cwd: Path | None = None, *extra: str, wait_for_mcp: bool = False
    ) -> list[dict]:
        """One `claude -p` session; the model requests it made (the main model's, not Haiku's).
        It may run while a Codex session of the same world does (`both`). `wait_for_mcp`: a
        session that calls an MCP tool. `claude -p` offers the tools of the MCP servers
        connected when its first turn starts and never adds one that connects later, so a slow
        `memvet mcp` (seconds on a loaded machine) would leave memory_recall out ("No such
        tool available"); CLAUDE_CODE_MCP_STARTUP_WAIT_MS makes it hold the first turn for
        them, up to that deadline (ms; unset, it does not wait)."""
        mark = len(self.stub.requests())
        wait = {"CLAUDE_CODE_MCP_STARTUP_WAIT_MS": "120000"} if wait_for_mcp else None
        self.claude("-p", prompt, "--output-format", "json", *extra, cwd=cwd, env=wait)
        return [
            r["body"]
            for r in self.stub.requests_since(mark, "/v1/messages")
            if "count_tokens" not in r["path"] and r["body"].get("messages")
        ]

    def codex_session(self, prompt: str, cwd: Path | None = None, *extra: str) -> list[dict]:
        mark = len(self.stub.requests())
        self.codex(
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-hook-trust",
            *extra,
            prompt,
            cwd=cwd,
        )
        return [r["body"] for r in self.stub.requests_since(mark, "/responses")]


def anthropic_texts(request: dict) -> dict[str, str]:
    """What Claude Code sent the model, by role: its system prompt, the system messages (where
    hook context goes), the user messages, and tool results."""
    system = request.get("system") or []
    out = {
        "system_prompt": system
        if isinstance(system, str)
        else "\n".join(b.get("text", "") for b in system),
        "system": "",
        "user": "",
        "tool_result": "",
    }
    for message in request.get("messages", []):
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            if block.get("type") == "tool_result":
                inner = block.get("content")
                out["tool_result"] += json.dumps(inner) if not isinstance(inner, str) else inner
            elif block.get("type") == "text" and message.get("role") in ("system", "user"):
                out[message["role"]] += block["text"] + "\n"
    return out


def responses_texts(request: dict) -> dict[str, str]:
    """What Codex sent the model: instructions, developer and user messages, tool outputs."""
    out = {
        "instructions": request.get("instructions") or "",
        "developer": "",
        "user": "",
        "tool_result": "",
    }
    for item in request.get("input", []):
        role = item.get("role")
        if item.get("type") == "message" and role in ("developer", "user"):
            out[role] += "\n".join(p.get("text", "") for p in item.get("content", [])) + "\n"
        elif item.get("type") == "function_call_output":
            out["tool_result"] += json.dumps(item.get("output"))
    return out


TEXTS = {"claude-code": anthropic_texts, "codex": responses_texts}


@pytest.fixture(scope="session")
def model_texts():
    """`model_texts(host, requests)`: what reached the model, by where it sits, joined."""

    def texts(host: str, requests: list[dict]) -> dict[str, str]:
        joined: dict[str, str] = {}
        for request in requests:
            for where, text in TEXTS[host](request).items():
                joined[where] = joined.get(where, "") + text
        return joined

    return texts


def run_both(claude_step, codex_step) -> tuple:
    """Run a Claude Code step and a Codex step of one world at the same time (they touch
    different host folders; memvet's store takes both): the host runs are the suite's cost."""
    with ThreadPoolExecutor(2) as pool:
        claude, codex = pool.submit(claude_step), pool.submit(codex_step)
        return claude.result(), codex.result()


@pytest.fixture(scope="session")
def both():
    """`both(claude_step, codex_step)`: see run_both."""
    return run_both


@pytest.fixture(scope="session")
def make_world(host_bins: dict[str, Path], tmp_path_factory: pytest.TempPathFactory):
    """`make_world(custom_folders)`: a new world with a model stub of its own, so worlds can
    play at the same time; the stubs are stopped (by pid) at the end of the session."""
    stubs: list[Stub] = []

    def make(custom_folders: bool) -> World:
        root = tmp_path_factory.mktemp("world")
        stubs.append(Stub(root / "model-stub"))
        return World(root, stubs[-1], host_bins, custom_folders)

    yield make
    for stub in stubs:
        stub.stop()
