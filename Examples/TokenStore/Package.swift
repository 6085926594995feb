// swift-tools-version: 6.0
// A small app's token store and its tests on keychainfs's test kit (docs/test-kit.md). On Linux the
// `Security` module and `KeychainTesting` come from keychainfs; on Apple platforms the system's Security
// framework is used and the kit is not linked (the tests that need it are skipped by #if).
import PackageDescription

let linux: TargetDependencyCondition? = .when(platforms: [.linux])

let package = Package(
    name: "TokenStore",
    products: [.library(name: "TokenStore", targets: ["TokenStore"])],
    dependencies: [.package(name: "keychainfs", path: "../..")],
    targets: [
        .target(
            name: "TokenStore",
            dependencies: [
                .product(name: "Security", package: "keychainfs", condition: linux),
                .product(name: "LocalAuthentication", package: "keychainfs", condition: linux),
            ]),
        .testTarget(
            name: "TokenStoreTests",
            dependencies: [
                "TokenStore",
                .product(name: "Security", package: "keychainfs", condition: linux),
                .product(name: "KeychainTesting", package: "keychainfs", condition: linux),
            ]),
    ]
)
