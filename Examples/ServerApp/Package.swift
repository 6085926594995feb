// swift-tools-version: 6.0
// A server package as the Swift server ecosystem writes one: swift-nio (and so swift-system) and
// swift-certificates beside keychainfs's `Security`, `LocalAuthentication`, `CryptoKit` and `KeychainTesting`.
// No target name of ours may collide with theirs, and our modules are aliased as docs/swift-api.md
// says, so that packages that test `#if canImport(Security)` never see them. `SERVERAPP_ALIAS=0` builds
// it without the aliases. scripts/test.sh resolves its graph; `make check-ecosystem` builds it from clean
// both ways and runs it.
import Foundation
import PackageDescription

let aliased = ProcessInfo.processInfo.environment["SERVERAPP_ALIAS"] != "0"

/// keychainfs's product `name`, its module aliased as docs/swift-api.md says (`Security` is built as
/// `KeychainFSSecurity`; this package's code still imports `Security`).
func keychainfs(_ name: String, alias: String? = nil) -> Target.Dependency {
    guard aliased, let alias else { return .product(name: name, package: "keychainfs") }
    return .product(name: name, package: "keychainfs", moduleAliases: [name: alias])
}

let package = Package(
    name: "ServerApp",
    dependencies: [
        .package(path: "keychainfs"),  // a link to the repository root: a path package is named by its directory
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        .executableTarget(
            name: "ServerApp",
            dependencies: [
                keychainfs("Security", alias: "KeychainFSSecurity"),
                keychainfs("LocalAuthentication", alias: "KeychainFSLocalAuthentication"),
                keychainfs("CryptoKit", alias: "KeychainFSCryptoKit"),
                keychainfs("KeychainTesting"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)])
    ]
)
