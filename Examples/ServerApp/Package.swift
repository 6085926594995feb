// swift-tools-version: 6.0
// A server package as the Swift server ecosystem writes one: swift-nio (and so swift-system) beside
// keychainfs's `Security` and `KeychainTesting` (issue 42: no target name of ours may collide with
// theirs). `make check-ecosystem` builds and runs it; scripts/test.sh resolves its graph.
import PackageDescription

let package = Package(
    name: "ServerApp",
    dependencies: [
        .package(name: "keychainfs", path: "../.."),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        .executableTarget(
            name: "ServerApp",
            dependencies: [
                .product(name: "Security", package: "keychainfs"),
                .product(name: "KeychainTesting", package: "keychainfs"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)])
    ]
)
