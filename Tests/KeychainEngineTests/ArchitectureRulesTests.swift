import Foundation
import KeychainFSModel
import Testing

/// The rules of the source tree that docs/architecture.md states, checked on the tree itself: a change
/// that breaks one fails here, not in a review.
@Suite struct ArchitectureRulesTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every Swift file under `folder` (relative to the repository), with its lines.
    static func swiftFiles(under folder: String) -> [(path: String, lines: [Substring])] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
            .compactMap { url in
                guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
                return (
                    String(url.path.dropFirst(root.path.count + 1)),
                    text.split(separator: "\n", omittingEmptySubsequences: false)
                )
            }
    }

    /// The codes the schema spells: classes, attributes, and the `m_`/`r_`/`u_`/`v_` query keys.
    static var schemaCodes: Set<String> {
        var codes = Set(Schema.classes.map(\.code))
        for schema in Schema.classes { codes.formUnion(schema.attributes.map(\.code)) }
        codes.formUnion(SecConstantTable.others.values.filter { $0.wholeMatch(of: /[murv]_[A-Za-z]+/) != nil })
        codes.formUnion([QueryKey.synchronizableAny, QueryKey.dataProtectionKeychain])
        return codes
    }

    /// Whole string literals on a line (not inside interpolations or longer strings).
    static func literals(_ line: Substring) -> [String] {
        line.matches(of: /(^|[^\\\w])"([A-Za-z_]+)"/).map { String($0.output.2) }
    }

    @Test func noClassOrAttributeCodeIsSpelledOutsideTheSchema() {
        let codes = Self.schemaCodes
        #expect(
            codes.contains("svce") && codes.contains("genp") && codes.contains("u_AuthCtx"),
            "the codes are read from the schema")
        var found: [String] = []
        for file in Self.swiftFiles(under: "Sources") where !file.path.hasPrefix("Sources/KeychainFSModel/Schema/") {
            for (number, line) in file.lines.enumerated() {
                let code = line.drop { $0 == " " }
                if code.hasPrefix("//") || line.contains("// not a schema code") { continue }
                for literal in Self.literals(line) where codes.contains(literal) {
                    found.append("\(file.path):\(number + 1): \"\(literal)\"")
                }
            }
        }
        #expect(
            found.isEmpty,
            "name them (Attributes.service.code, Schema.genericPassword.code, QueryKey.returnData):\n\(found.joined(separator: "\n"))"
        )
    }

    /// The check above finds what it looks for: a line that spells a code is reported.
    @Test func theLiteralCheckFindsASpelledCode() {
        #expect(Self.literals(#"query["svce"] = .string(name)"#).contains { Self.schemaCodes.contains($0) })
        #expect(
            !Self.literals(#"query[Attributes.service.code] = "svce is \(x)""#).contains {
                Self.schemaCodes.contains($0)
            })
    }

    @Test func onlyTheEngineAndSyncImportTheStore() {
        let allowed = ["Sources/KeychainFSStore/", "Sources/KeychainFSEngine/", "Sources/KeychainFSSync/"]
        let importers = Self.swiftFiles(under: "Sources").filter { file in
            !allowed.contains { file.path.hasPrefix($0) }
                && file.lines.contains {
                    $0.hasPrefix("import KeychainFSStore") || $0.hasPrefix("@testable import KeychainFSStore")
                }
        }.map(\.path)
        #expect(importers.isEmpty, "\(importers)")
    }

    @Test func everyCitationResolvesInsideTheRepository() {
        var outside: [String] = []
        for folder in ["Sources", "Tests", "fuzz", "bench"] {  // citation check
            for file in Self.swiftFiles(under: folder) {
                for (number, line) in file.lines.enumerated()
                where ["SPEC §", "shared/SPEC", "shared/reference", "shared/seeds"].contains(where: {  // citation check
                    line.contains($0)
                }) && !line.contains("// citation check") {
                    outside.append("\(file.path):\(number + 1)")
                }
                for (number, line) in file.lines.enumerated() {
                    for match in line.matches(of: /docs\/[A-Za-z0-9_\/.-]+\.md/) {
                        let path = String(match.output)
                        if !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path) {
                            outside.append("\(file.path):\(number + 1): \(path) does not exist")
                        }
                    }
                }
            }
        }
        #expect(outside.isEmpty, "\(outside.joined(separator: "\n"))")
    }

    /// A pointer into the issue tracker (an issue or defect by its number), which is not part of the repository.
    static func pointsAtTheTracker(_ line: String) -> Bool { line.contains(/\b([Ii]ssues?|[Dd]efects?) #?[0-9]+/) }

    /// No comment or page points at the issue tracker: it cites the docs section that states the rule, or
    /// says the reason itself. Lines marked `// pointer check` are this rule's own.
    @Test func noPointerToAnIssueTracker() throws {
        var files = ["Sources", "Tests", "fuzz", "bench"].flatMap { Self.swiftFiles(under: $0) }
        let docs = Self.root.appendingPathComponent("docs")
        let pages =
            (FileManager.default.enumerator(at: docs, includingPropertiesForKeys: nil)?.compactMap {
                $0 as? URL
            }.filter { $0.pathExtension == "md" }.map { String($0.path.dropFirst(Self.root.path.count + 1)) } ?? [])
            + ["README.md", "BENCHMARKS.md", "RELIABILITY.md"]
        for page in pages.sorted() {
            let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
            files.append((page, text.split(separator: "\n", omittingEmptySubsequences: false)))
        }
        #expect(pages.count > 20, "the docs' pages were found: \(pages)")
        var pointers: [String] = []
        for file in files {
            for (number, line) in file.lines.enumerated()
            where Self.pointsAtTheTracker(String(line)) && !line.contains("// pointer check") {
                pointers.append("\(file.path):\(number + 1): \(line)")
            }
        }
        #expect(pointers.isEmpty, "\(pointers.joined(separator: "\n"))")
        #expect(Self.pointsAtTheTracker("// fixed in iss" + "ue 27"))  // pointer check
        #expect(Self.pointsAtTheTracker("// see defe" + "cts 1 and 9"))  // pointer check
        #expect(!Self.pointsAtTheTracker("// see docs/spec.md §11"))
    }

    /// The targets whose declarations may be `public`: the products' (Package.swift says why each is one).
    /// Every other target shares what it must with `package` access, so nothing outside this repository
    /// can come to depend on it.
    static let publicTargets: Set<String> = [
        "Security", "LocalAuthentication", "CryptoKit", "KeychainTesting", "KeychainFSEngine", "KeychainFSModel",
        // The two protocols CryptoKit's SecureEnclave names SecAccessControl and LAContext by, so that it
        // depends on neither product (an alias holds only for a product no other product's module imports).
        "KeychainFSClient",
        // The kit's mount (device.mount(), device.environment): a product of its own, so only it links libfuse.
        "KeychainTestingMount",
        // The store's types the engine's face names (Vault, VaultLock, DeviceState, OutsideFile): bench/engine
        // opens vaults through them.
        "KeychainFSStore",
    ]

    static func publicDeclarations(in lines: [Substring]) -> [Int] {
        lines.indices.filter { lines[$0].wholeMatch(of: /\s*(@\w+(\([^)]*\))?\s+)*(public|open)\s.*/) != nil }
    }

    @Test func onlyTheProductsArePublic() {
        var found: [String] = []
        for file in Self.swiftFiles(under: "Sources") {
            let target = file.path.split(separator: "/")[1]
            guard !Self.publicTargets.contains(String(target)) else { continue }
            found += Self.publicDeclarations(in: file.lines).map { "\(file.path):\($0 + 1)" }
        }
        #expect(found.isEmpty, "use `package`:\n\(found.joined(separator: "\n"))")
        #expect(
            Self.publicDeclarations(in: [
                "    public func f() {}", "  @inlinable public var x = 1", "package let y = 2",
            ]) == [0, 1])
    }

    /// The modules a user's package imports by name; every other library target carries the prefix, so that
    /// no package beside ours declares the same name (docs/swift-api.md; swift-system's `CSystem` refused the graph of
    /// every swift-nio package that depended on us).
    static let productModules: Set<String> = [
        "Security", "LocalAuthentication", "CryptoKit", "KeychainTesting", "KeychainTestingMount",
    ]

    static func unprefixedTargets(inManifest manifest: String) -> [String] {
        manifest.matches(of: /\.(?:target|systemLibrary)\(\s*name: "([^"]+)"/).map { String($0.output.1) }
            .filter { !$0.hasPrefix("KeychainFS") && !productModules.contains($0) }
    }

    @Test func everyLibraryTargetButTheProductsCarriesThePrefix() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(Self.unprefixedTargets(inManifest: manifest).isEmpty)
        #expect(
            Self.unprefixedTargets(inManifest: #".systemLibrary(name: "CSystem"), .target(name: "KeychainFSModel")"#)
                == ["CSystem"])
    }
}
