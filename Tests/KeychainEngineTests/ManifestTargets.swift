import Foundation

/// The targets of Package.swift as the dependency rules read them: a scan of the manifest's text (the
/// manifest is written one way: `.kind(name: "…", dependencies: [...], path: "…")`), so the test needs no
/// SwiftPM run, which would wait for the build directory's lock that `swift test` holds.
struct ManifestTarget: Equatable {
    var kind: String
    var name: String
    /// Targets and products it names, by module name.
    var dependencies: Set<String>
    var path: String

    var isExecutable: Bool { kind == "executableTarget" }

    /// Every target of `manifest`.
    static func all(in manifest: String) -> [ManifestTarget] {
        manifest.matches(of: /\.(target|testTarget|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)"/).map {
            match in
            let kind = String(match.output.1), name = String(match.output.2)
            let call = balanced(manifest[match.range.upperBound...], open: "(", close: ")", depth: 1)
            let list = call.firstRange(of: "dependencies:").map {
                balanced(call[$0.upperBound...], open: "[", close: "]")
            }
            let named = list.map { written in
                let list = written.replacing(/\/\/[^\n]*/, with: "")  // comments may quote names
                let calls = /\.(?:product|target)\(\s*name:\s*"([^"]+)"[^)]*\)/
                let bare = list.replacing(calls, with: "").matches(of: /"([^"]+)"/).map { String($0.output.1) }
                return bare + list.matches(of: calls).map { String($0.output.1) }
            }
            let path = call.firstMatch(of: /path:\s*"([^"]+)"/).map { String($0.output.1) }
            let folder = kind == "testTarget" ? "Tests/" : "Sources/"
            return ManifestTarget(
                kind: kind, name: name, dependencies: Set(named ?? []), path: path ?? folder + name)
        }
    }

    /// The products of other packages the manifest names (their module names).
    static func products(in manifest: String) -> Set<String> {
        Set(manifest.matches(of: /\.product\(\s*name:\s*"([^"]+)",\s*package:\s*"([^"]+)"/).map { String($0.output.1) })
    }

    /// `text` up to the bracket that closes the first `open` (or, from `depth` 1, the one already open);
    /// strings skipped; all of it if none does.
    static func balanced(_ text: Substring, open: Character, close: Character, depth start: Int = 0) -> Substring {
        var depth = start, inString = false
        for index in text.indices {
            let c = text[index]
            if c == "\"" { inString.toggle() }
            guard !inString else { continue }
            if c == open { depth += 1 }
            if c == close {
                depth -= 1
                if depth == 0 { return text[...index] }
            }
        }
        return text
    }

    /// The module an `import` line names (any attributes, access level or declaration kind before it).
    static func importedModule(_ line: Substring) -> String? {
        guard line.contains("import ") else { return nil }  // most lines: the regex is slow
        return line.wholeMatch(
            of:
                /\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|func|var|let|protocol|typealias)\s+)?([A-Za-z_]\w*).*/
        ).map { String($0.output.1) }
    }
}
