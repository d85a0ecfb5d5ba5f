"""Arity prefixes for always-patterns."""

from __future__ import annotations

import pytest

from shellpilot.scanner.arity import ARITY, prefix, prefix_text

CASES: list[tuple[str, str]] = [
    ("", ""),
    ("ls", "ls"),
    ("ls -la", "ls"),
    ("rm -rf /", "rm"),
    ("git status", "git status"),
    ("git checkout -b x", "git checkout"),
    ("git config --global user.name x", "git config --global"),
    ("git stash pop", "git stash pop"),
    ("git -C dir status", "git -C"),
    ("npm install", "npm install"),
    ("npm run dev", "npm run dev"),
    ("npm run", "npm run"),
    ("pnpm run build --filter x", "pnpm run build"),
    ("yarn run test", "yarn run test"),
    ("bun run dev", "bun run dev"),
    ("bun x prettier", "bun x prettier"),
    ("deno task start", "deno task start"),
    ("docker ps -a", "docker ps"),
    ("docker compose up -d", "docker compose up"),
    ("docker compose exec web sh", "docker compose exec web"),
    ("docker image ls", "docker image ls"),
    ("kubectl get pods -A", "kubectl get pods"),
    ("kubectl apply -f x.yaml", "kubectl apply"),
    ("kubectl rollout status deploy/x", "kubectl rollout status"),
    ("helm install x chart", "helm install"),
    ("helm repo add x url", "helm repo add"),
    ("terraform plan", "terraform plan"),
    ("terraform workspace select dev", "terraform workspace select"),
    ("gh pr view 12", "gh pr view"),
    ("gh issue list", "gh issue list"),
    ("aws s3 cp a b", "aws s3 cp"),
    ("gcloud compute instances list", "gcloud compute instances list"),
    ("gcloud auth login", "gcloud auth login"),
    ("az vm list", "az vm list"),
    ("cargo build --release", "cargo build"),
    ("cargo run --bin x", "cargo run --bin"),
    ("cargo add serde", "cargo add serde"),
    ("go test ./...", "go test"),
    ("go mod tidy", "go mod tidy"),
    ("pip install -r req.txt", "pip install"),
    ("python -m pytest -x", "python -m pytest"),
    ("python3 -m venv .venv", "python3 -m venv"),
    ("python script.py", "python script.py"),
    ("uv run pytest -q", "uv run pytest"),
    ("uv pip install x", "uv pip install"),
    ("uv sync", "uv sync"),
    ("poetry run pytest", "poetry run pytest"),
    ("poetry install", "poetry install"),
    ("npx eslint .", "npx eslint"),
    ("make test", "make test"),
    ("make", "make"),
    ("just build", "just build"),
    ("systemctl restart nginx", "systemctl restart"),
    ("systemctl --user restart x", "systemctl --user restart"),
    ("brew install jq", "brew install"),
    ("apt-get install -y curl", "apt-get install"),
    ("apt install x", "apt install"),
    ("dnf install x", "dnf install"),
    ("pytest tests/x.py -k y", "pytest"),
    ("mypy src", "mypy"),
    ("ruff check .", "ruff check"),
    ("bash -c 'rm x'", "bash -c"),
    ("constructor", "constructor"),
    # a command the table does not know may run what follows it (`rtk rm -rf x`): its
    # always-pattern reaches its first operand, so it never covers every command behind it
    ("toString x", "toString x"),
    ("__proto__ y", "__proto__ y"),
    ("hasOwnProperty", "hasOwnProperty"),
    ("unknowncmd --flag arg", "unknowncmd --flag arg"),
    ("rtk rm -rf x", "rtk rm"),
    ("./run.sh test x", "./run.sh test"),
    ("tr a b", "tr"),
    ("Remove-Item -Path x", "Remove-Item"),
    ("del /q x", "del"),
]


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c[0] or "<empty>" for c in CASES])
def test_prefix(command: str, expected: str) -> None:
    assert prefix(command.split()) == expected.split()


@pytest.mark.parametrize(("command", "expected"), CASES, ids=[c[0] or "<empty>" for c in CASES])
def test_prefix_text_is_the_joined_prefix(command: str, expected: str) -> None:
    assert prefix_text(command.split()) == expected
    assert prefix_text(tuple(command.split())) == expected


def test_prefix_never_returns_more_than_given() -> None:
    assert prefix(["npm", "run"]) == ["npm", "run"]
    assert prefix(["gh"]) == ["gh"]


def test_table_is_read_only_and_wide() -> None:
    assert len(ARITY) > 300
    with pytest.raises(TypeError):
        ARITY["rm"] = 5  # type: ignore[index]
