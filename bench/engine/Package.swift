// swift-tools-version:6.1
// Engine micro-benchmarks (docs/spec.md §7): SecItem operations on a real vault, no FUSE, so that the
// engine's share of a filesystem call can be told from FUSE's. A package of its own so that the
// product and its CI never build benchmark tooling. Run by bench/run, or:
//   swift run -c release --package-path bench/engine EngineBenchmarks
//
// ordo-one/package-benchmark cannot be resolved on this machine: on Linux with Swift 6.3 it needs
// ordo-one/swift-runtime-interposer, which is not among the packages available here. google's
// swift-benchmark is, and measures the same way (iterations until stable, median and deviation).
import PackageDescription

let package = Package(
    name: "EngineBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "keychainfs"),  // a link to the repository root: a path package is named by its directory
        .package(url: "https://github.com/google/swift-benchmark", exact: "0.1.2"),
    ],
    targets: [
        .executableTarget(
            name: "EngineBenchmarks",
            dependencies: [
                .product(name: "KeychainEngine", package: "keychainfs"),
                .product(name: "Security", package: "keychainfs"),
                .product(name: "Benchmark", package: "swift-benchmark"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // The test kit (docs/test-kit.md): a new simulated device, SecItemCopyMatching on one, 1,000 tests in parallel.
        .executableTarget(
            name: "KitBenchmarks",
            dependencies: [
                .product(name: "KeychainTesting", package: "keychainfs"),
                .product(name: "Security", package: "keychainfs"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "BuildVault",
            dependencies: [.product(name: "KeychainEngine", package: "keychainfs")],
            swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
