// swift-tools-version:6.1
// SecKey micro-benchmarks (docs/spec.md §7): P-256 ECDSA signing through the Security module against swift-crypto's
// own signing in the same process, and a Secure Enclave key's signing, which goes to wherever the vault's
// engine runs (this process for a fresh vault; the daemon when KEYCHAIN_VAULT names a mounted one).
//   swift run -c release --package-path bench/keys KeyBenchmarks
// A package of its own so that the product never builds benchmark tooling.
import PackageDescription

let package = Package(
    name: "KeyBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "keychainfs"),  // a link to the repository root
        .package(url: "https://github.com/google/swift-benchmark", exact: "0.1.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        .executableTarget(
            name: "KeyBenchmarks",
            dependencies: [
                .product(name: "Security", package: "keychainfs"),
                .product(name: "Benchmark", package: "swift-benchmark"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)])
    ]
)
