#!/usr/bin/env python3
"""Writes a commit that git's own commands would refuse to make, straight into
a repository's object database, as a hostile or broken remote would serve it.

    craft-commit.py <repo> <branch> <entries.json>

The new commit's parent is the branch's commit (if any) and its tree is the
parent's tree with the entries applied. entries.json is a list of
{"path": "...", "mode": "100644"|"100755"|"120000"|"160000", "content": "...", "hex": "..."}:
the content (text) or hex bytes of a blob, or for mode 160000 the commit id
in "content". An entry with "delete": true removes the path. Prints the new
commit's id and moves the branch to it. Paths are taken as bytes (Latin-1
escapes are not used): any name, ".." or ".git" included.
"""
import hashlib, json, os, subprocess, sys, time, zlib

# A hostile tree may be nested thousands of folders deep.
sys.setrecursionlimit(100_000)

_git_dirs = {}

def objects_home(repo):
    """The repository's git folder, asked of git once per repository (a deep tree writes thousands of objects)."""
    if repo not in _git_dirs:
        git_dir = subprocess.run(["git", "-C", repo, "rev-parse", "--git-dir"], capture_output=True, text=True, check=True).stdout.strip()
        _git_dirs[repo] = git_dir if os.path.isabs(git_dir) else os.path.join(repo, git_dir)
    return _git_dirs[repo]

def write_object(repo, kind, body):
    data = kind.encode() + b" " + str(len(body)).encode() + b"\0" + body
    sha = hashlib.sha1(data).hexdigest()
    git_dir = objects_home(repo)
    folder = os.path.join(git_dir, "objects", sha[:2])
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, sha[2:])
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(zlib.compress(data))
    return sha

def write_zeros(repo, count):
    """A blob of `count` zero bytes, hashed and compressed a MiB at a time."""
    header = b"blob " + str(count).encode() + b"\0"
    sha = hashlib.sha1(header)
    chunk = bytes(1 << 20)
    left = count
    while left:
        sha.update(chunk[:min(left, len(chunk))])
        left -= min(left, len(chunk))
    hexsha = sha.hexdigest()
    git_dir = objects_home(repo)
    folder = os.path.join(git_dir, "objects", hexsha[:2])
    os.makedirs(folder, exist_ok=True)
    deflate = zlib.compressobj()
    with open(os.path.join(folder, hexsha[2:]), "wb") as f:
        f.write(deflate.compress(header))
        left = count
        while left:
            f.write(deflate.compress(chunk[:min(left, len(chunk))]))
            left -= min(left, len(chunk))
        f.write(deflate.flush())
    return hexsha

def main():
    repo, branch, spec = sys.argv[1], sys.argv[2], sys.argv[3]
    entries = json.load(open(spec))
    ref = "refs/heads/" + branch
    parent = subprocess.run(["git", "-C", repo, "rev-parse", "--verify", "-q", ref], capture_output=True, text=True).stdout.strip()
    files = {}  # path (bytes) -> (mode, sha)
    if parent:
        out = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "-z", "--full-tree", parent], capture_output=True, check=True).stdout
        for line in out.split(b"\0"):
            if not line:
                continue
            meta, path = line.split(b"\t", 1)
            mode, _, sha = meta.split(b" ")
            files[path] = (mode.decode(), sha.decode())
    for entry in entries:
        path = entry["path"].encode()
        if entry.get("delete"):
            files.pop(path, None)
            continue
        mode = entry.get("mode", "100644")
        if mode == "160000":
            sha = entry["content"]
        else:
            if entry.get("zeros") is not None:
                sha = write_zeros(repo, entry["zeros"])
            else:
                body = bytes.fromhex(entry["hex"]) if entry.get("hex") is not None else entry["content"].encode()
                sha = write_object(repo, "blob", body)
        files[path] = (mode, sha)

    def build(prefix):
        names = {}
        for path, value in files.items():
            if not path.startswith(prefix):
                continue
            rest = path[len(prefix):]
            head, sep, tail = rest.partition(b"/")
            if sep:
                names[head] = ("40000", None)
            else:
                names[head] = value
        body = b""
        def key(name):  # git sorts trees as if their names ended in "/"
            return name + (b"/" if names[name][0] == "40000" else b"")
        for name in sorted(names, key=key):
            mode, sha = names[name]
            if mode == "40000":
                sha = build(prefix + name + b"/")
            body += mode.encode() + b" " + name + b"\0" + bytes.fromhex(sha)
        return write_object(repo, "tree", body)

    tree = build(b"")
    now = int(time.time())
    lines = ["tree " + tree] + (["parent " + parent] if parent else []) + [
        f"author Mallory <mallory@example.invalid> {now} +0000",
        f"committer Mallory <mallory@example.invalid> {now} +0000", "", "Crafted commit", ""]
    commit = write_object(repo, "commit", "\n".join(lines).encode())
    subprocess.run(["git", "-C", repo, "update-ref", ref, commit], check=True)
    print(commit)

main()
