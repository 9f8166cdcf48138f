#!/usr/bin/env bash
# Builds and runs a new package that depends on this checkout the way the README's "Adding Strata to a
# package" section says (by path, under the package name "strata"), so the snippet stays true.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The checkout as a folder named "strata": a path dependency's package name is its folder's name.
git -C "$root" ls-files -z | (cd "$root" && xargs -0 tar cf -) | (mkdir -p "$work/strata" && cd "$work/strata" && tar xf -)
mkdir -p "$work/App/Sources/App"
cat > "$work/App/Package.swift" <<'SWIFT'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(path: "../strata"),
    ],
    targets: [
        .executableTarget(name: "App", dependencies: [.product(name: "Strata", package: "strata")]),
    ]
)
SWIFT
cat > "$work/App/Sources/App/main.swift" <<'SWIFT'
import Strata

final class Note: Model {
    var id: Int64 = 0
    var title = ""
    required init() {}
}

let db = try Database()
let note = Note()
note.title = "hello"
try db.save(note)
print("Strata \(StrataLibrary.version): \(try db.count(Note.self)) note, \(try db.objects(Note.self, where: "id IN (?)", [note.id]).map(\.title))")
SWIFT
cd "$work/App"
output=$(swift run -q App 2>&1)
echo "$output"
[[ "$output" == *"1 note, [\"hello\"]"* ]] || { echo "package snippet check failed" >&2; exit 1; }
echo "package snippet: ok"
