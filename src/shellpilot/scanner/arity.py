"""Command arity: how many leading tokens name "the command" for an always-pattern.

Owns: the arity table and `prefix()`. Must not touch: parsing, rules, matching or I/O.

`git checkout -b x` -> `git checkout`, `npm run dev` -> `npm run dev`, `ls -la` -> `ls`.
The table covers common developer CLIs and is keyed by exact token runs, so a command
called `constructor` or `__proto__` is simply a command.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

_ONE = """
cat cd chmod chown cp echo env export grep kill killall ln ls mkdir mv ps pwd rm rmdir
sleep source tail touch unset which head less more tee find sed awk wc sort uniq diff
curl wget tar zip unzip ssh scp rsync eval exec
pytest black isort flake8 pylint mypy tsc eslint prettier jest vitest gcc g++ clang rustc
: . [ [[ alias bg break builtin caller command compgen complete continue declare dirs disown
enable exit false fc fg getopts hash help history jobs let local logout mapfile popd printf
pushd read readarray readonly return set shift shopt suspend test times trap true type
typeset ulimit umask unalias wait
arch b2sum base32 base64 basename basenc chcon chgrp cksum comm csplit cut date dd df dir
dircolors dirname du expand expr factor fmt fold groups hostid id install join link logname
md5sum mkfifo mknod mktemp nice nl nohup nproc numfmt od paste pathchk pr printenv ptx
readlink realpath runcon seq sha1sum sha224sum sha256sum sha384sum sha512sum shred shuf
stat stdbuf stty sum sync tac timeout tr truncate tsort tty uname unexpand unlink users
vdir who whoami yes
egrep fgrep rg ag ack fd locate xargs gawk mawk jq yq xmllint most file strings hexdump xxd
cmp patch colordiff tree lsof pgrep pkill top htop free uptime vmstat iostat mount umount
lsblk ifconfig ping nc ncat socat netstat ss dig nslookup host traceroute sftp gzip gunzip
bzip2 bunzip2 xz unxz zstd 7z gpg md5 shasum tput clear watch time column bc dc vim vi nvim
nano emacs code man info whereis iconv dos2unix unix2dos envsubst sudo doas su runuser
bash sh zsh dash ksh fish pwsh powershell cmd perl ruby php lua java javac cc c++ ld as
strace ltrace gdb valgrind flock taskset chrt ionice setsid unbuffer busybox script parallel
ssh-keygen shellcheck shfmt gofmt rustfmt clang-format autopep8 yapf virtualenv
assoc attrib cls copy del erase md move rd ren rename robocopy start xcopy where findstr
"""

_TWO = """
bazel brew bun cargo cdk cf cmake composer consul crictl deno docker eksctl firebase
flyctl git go gradle helm heroku hugo ip kind kubectl kustomize make mc mongosh
mysql mvn ng npm nvm nx openssl pip pipenv pnpm poetry podman psql pulumi pyenv python
rake rbenv redis-cli rustup serverless skaffold sls sst swift systemctl terraform tmux
turbo ufw vault vercel volta wp yarn
uv uvx pip3 pipx conda mamba micromamba hatch pdm tox nox pre-commit ruff
python3 python2 node npx bunx dotnet gem bundle rails mix elixir erl rebar3 stack cabal
ghc sbt lein clj dart flutter pod xcodebuild xcrun fastlane ninja meson
just task invoke fab ansible ansible-playbook vagrant packer nomad k3d k9s
kubectx kubens istioctl linkerd argocd flux tkn oc linode-cli hcloud
apt apt-get apt-cache dnf yum zypper pacman apk snap flatpak port nix nix-env
journalctl service launchctl loginctl timedatectl hostnamectl nmcli
docker-compose podman-compose buildah skopeo nerdctl ctr
supabase netlify wrangler railway fly render
sqlite3 mongo redis-server pg_ctl createdb dropdb
jupyter ipython coverage sphinx-build mkdocs
vite webpack rollup esbuild playwright cypress lerna rush
git-lfs hg svn
gsutil bq
"""

_THREE_NAMES = "aws az doctl gcloud gh sfdx"

_THREE = """
bun run
bun x
cargo add
cargo run
consul kv
deno task
docker builder
docker compose
docker container
docker image
docker network
docker volume
docker buildx
docker context
docker system
docker manifest
docker plugin
docker secret
docker service
docker stack
docker swarm
docker node
docker trust
docker-compose exec
docker-compose run
podman-compose exec
podman-compose run
eksctl create
eksctl delete
eksctl get
git config
git remote
git stash
git submodule
git worktree
git lfs
git bisect
git notes
git sparse-checkout
ip addr
ip link
ip netns
ip route
kind create
kind delete
kubectl kustomize
kubectl rollout
kubectl config
kubectl auth
kubectl create
kubectl delete
kubectl get
kubectl describe
kubectl set
kubectl top
kubectl certificate
kubectl plugin
helm repo
helm plugin
helm dependency
mc admin
npm exec
npm init
npm run
npm run-script
npm view
npm cache
npm config
npm pkg
npm team
npm token
npm access
npm dist-tag
openssl req
openssl x509
pnpm dlx
pnpm exec
pnpm run
pnpm store
podman container
podman image
podman network
podman volume
podman pod
pulumi stack
pulumi config
terraform workspace
terraform state
terraform providers
vault auth
vault kv
vault secrets
vault policy
yarn dlx
yarn run
yarn workspace
yarn workspaces
yarn global
yarn cache
yarn config
uv run
uv pip
uv tool
uv python
uv cache
uv self
uv venv
poetry run
poetry env
poetry self
poetry source
poetry cache
pipenv run
pdm run
hatch run
hatch env
conda env
conda run
mamba env
pip cache
pip config
pip3 cache
pip3 config
python -m
python3 -m
python2 -m
rustup toolchain
rustup target
rustup component
rustup override
go mod
go tool
go env
go work
cargo install
cargo make
dotnet new
dotnet tool
dotnet add
dotnet ef
gem install
bundle exec
rails generate
rails db
systemctl --user
brew services
brew cask
nix flake
nix profile
terraform -chdir
gsutil iam
snap install
flatpak install
task run
just run
"""

_FOUR = """
gcloud compute instances
gcloud compute disks
gcloud container clusters
gcloud run services
docker compose exec
docker compose run
docker container exec
"""

# Keys whose arity differs from their block: the shell `-c` forms name the shell and
# the flag only (the script itself is scanned separately by the scanner).
_EXPLICIT = {"bash -c": 2, "sh -c": 2, "zsh -c": 2, "dash -c": 2, "ksh -c": 2, "systemctl --user": 3}


def _build() -> dict[str, int]:
    table: dict[str, int] = {}
    for block, arity in ((_ONE, 1), (_TWO, 2), (_THREE_NAMES, 3)):
        for name in block.split():
            table[name] = arity
    for block, arity in ((_THREE, 3), (_FOUR, 4)):
        for line in block.strip().splitlines():
            key = " ".join(line.split())
            table[key] = arity
    table.update(_EXPLICIT)
    return table


# Plain dicts for the lookups (a mappingproxy's .get costs an extra call); never mutated
# after import, and only the read-only views below are public.
_TABLE = _build()
ARITY: Mapping[str, int] = MappingProxyType(_TABLE)
"""Read-only table: space-joined token run -> number of tokens that name the command."""


_CMDLET = re.compile(r"[A-Z][a-z]+-[A-Z][A-Za-z]+")

_Trie = dict[str, "tuple[int, _Trie]"]
"""token -> (the arity of the run ending here, 0 when that run is no key; longer runs)."""


def _trie() -> _Trie:
    root: _Trie = {}
    for key, arity in _TABLE.items():
        parts = key.split()
        level = root
        for i, part in enumerate(parts):
            known, below = level.get(part, (0, {}))
            level[part] = (arity if i == len(parts) - 1 else known, below)
            level = below
    return root


_TRIE = _trie()
"""`_TABLE` as a token trie: one dict lookup per token instead of a join per tried run."""


def _arity(tokens: Sequence[str]) -> int:
    """How many of `tokens` (non-empty) name the command: the arity of the longest key
    that `tokens` starts with (walks `_TRIE`, one lookup per matching token).

    A command the table does not know may be a wrapper of what follows (`rtk rm -rf x`),
    so its always-pattern must not cover every command behind it: its tokens up to and
    including the first one that is not an option name it (`rtk rm`, `./run.sh test`).
    """
    entry = _TRIE.get(tokens[0])
    if entry is None:
        if _CMDLET.fullmatch(tokens[0]):
            return 1  # a PowerShell cmdlet (`Remove-Item -Path x`) names itself
        for i in range(1, len(tokens)):
            if tokens[i][:1] != "-":
                return i + 1
        return len(tokens)
    arity, below = entry
    arity = arity or 1
    i = 1
    n = len(tokens)
    while below and i < n:
        entry = below.get(tokens[i])
        if entry is None:
            break
        if entry[0]:
            arity = entry[0]
        below = entry[1]
        i += 1
    return arity


def known(name: str) -> bool:
    """Whether the table names command `name` (its first token)."""
    return name in _TRIE


def prefix(tokens: Sequence[str]) -> list[str]:
    """The leading tokens that name the command: the longest known run in `ARITY`.

    The longest run of leading tokens that is a key wins; returns its first `arity`
    tokens (never more than given). A command not in the table: its tokens up to the
    first that is not an option (see `_arity`); empty input -> `[]`.
    Flags count as tokens (`git -C x status` -> `git -C`).
    """
    if not tokens:
        return []
    return list(tokens[: _arity(tokens)])


def prefix_text(tokens: Sequence[str]) -> str:
    """`" ".join(prefix(tokens))` (the scanner's always-pattern head). Empty input -> `""`."""
    if not tokens:
        return ""
    arity = _arity(tokens)
    if arity == 1 or len(tokens) == 1:
        return tokens[0]
    return " ".join(tokens[:arity])
