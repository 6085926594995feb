// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "keychainfs",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "keychainfs", targets: ["keychainfs"]),
        // Credential helpers for git (`credential.helper keychainfs`) and Docker (`"credsStore": "keychainfs"`).
        .executable(name: "git-credential-keychainfs", targets: ["git-credential-keychainfs"]),
        .executable(name: "docker-credential-keychainfs", targets: ["docker-credential-keychainfs"]),
        .library(name: "KeychainEngine", targets: ["KeychainEngine"]),
        // Apple's SecItem API for Swift on Linux: `import Security` (and `import LocalAuthentication`).
        .library(name: "Security", targets: ["Security", "LocalAuthentication"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // System libraries (found with pkg-config).
        .systemLibrary(name: "CFuse", pkgConfig: "fuse3", providers: [.apt(["libfuse3-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CSystem"),
        // libfuse's worker loop, with the guard against its self-rename deadlock (C: it cancels blocked workers).
        .target(name: "CFuseLoop", dependencies: ["CFuse"]),

        // Crypto core: guarded key memory, AEAD, KDF, keyed hashes.
        .target(name: "SodiumCrypto", dependencies: ["CSodium"], swiftSettings: strict),

        // The keychain engine: schema, SecItem semantics, encrypted store, keybag, device lock.
        .target(
            name: "KeychainEngine",
            dependencies: [
                "SodiumCrypto",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // The control socket: framing, requests, client and server.
        .target(name: "ControlChannel", dependencies: ["KeychainEngine"], swiftSettings: strict),

        // SecItem calls on a vault: through its daemon, or in-process when none runs.
        .target(name: "KeychainClient", dependencies: ["KeychainEngine", "ControlChannel"], swiftSettings: strict),

        // Apple's SecItem API (source-compatible) over KeychainClient; LAContext and friends.
        .target(name: "Security", dependencies: ["KeychainEngine", "KeychainClient"], swiftSettings: strict),
        .target(name: "LocalAuthentication", dependencies: ["Security"], swiftSettings: strict),

        // The FUSE frontend: paths and errnos translated into keychain calls.
        .target(
            name: "KeychainFS",
            dependencies: ["CFuse", "CFuseLoop", "KeychainEngine", "SodiumCrypto", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),

        // The daemon: one per mounted vault; wires engine, FUSE session, control socket, signals.
        .target(
            name: "KeychainDaemon",
            dependencies: ["CSystem", "KeychainEngine", "KeychainFS", "ControlChannel", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict),

        // The command line: a thin client.
        .executableTarget(
            name: "keychainfs",
            dependencies: [
                "KeychainEngine", "KeychainDaemon", "KeychainFS", "ControlChannel", "KeychainClient",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),

        // git's and Docker's credential-helper protocols on internet passwords, as their macOS helpers keep them.
        .target(name: "CredentialHelpers", dependencies: ["CSystem", "KeychainEngine", "KeychainClient"], swiftSettings: strict),
        .executableTarget(name: "git-credential-keychainfs", dependencies: ["CredentialHelpers"], path: "Sources/GitCredentialHelper",
                          swiftSettings: strict),
        .executableTarget(name: "docker-credential-keychainfs", dependencies: ["CredentialHelpers"], path: "Sources/DockerCredentialHelper",
                          swiftSettings: strict),

        // Test helpers shared by the test targets (real certificates made with openssl).
        .target(name: "TestSupport", dependencies: ["ControlChannel", "KeychainEngine", .product(name: "Crypto", package: "swift-crypto")],
                path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "KeychainEngineTests", dependencies: [
            "KeychainEngine", "SodiumCrypto", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
        ], swiftSettings: strict),
        // iOS-style client code in a process of its own, for the lock tests.
        .executableTarget(name: "security-probe", dependencies: ["Security"], path: "Tests/SecurityProbe", swiftSettings: strict),
        .testTarget(name: "SecurityAPITests", dependencies: ["Security", "LocalAuthentication", "TestSupport", "security-probe", "keychainfs"],
                    swiftSettings: strict),
        .testTarget(name: "SecurityAPITestsSwift5", dependencies: ["Security", "LocalAuthentication", "TestSupport"],
                    swiftSettings: [.swiftLanguageMode(.v5), .define("SWIFT5_MODE")]),
        .testTarget(name: "KeychainFSTests", dependencies: ["KeychainFS", "KeychainEngine"], swiftSettings: strict),
        .testTarget(name: "CredentialHelperTests", dependencies: [
            "CredentialHelpers", "CSystem", "Security", "TestSupport", "keychainfs", "git-credential-keychainfs", "docker-credential-keychainfs",
        ], exclude: ["git-http-server.py"], swiftSettings: strict),
        // Fuzzing (SPEC §8): one target per parser of outside bytes (fuzz/Harness), libFuzzer's driver or a replayer
        // (fuzz/Driver; fuzz/build.sh builds it with the sanitizers), and the committed corpora replayed as tests.
        .target(name: "FuzzHarness", dependencies: ["ControlChannel", "KeychainEngine", "KeychainFS", "SodiumCrypto",
                                                    .product(name: "Crypto", package: "swift-crypto")],
                path: "fuzz/Harness", swiftSettings: strict),
        .executableTarget(name: "keychainfs-fuzz", dependencies: ["FuzzHarness"], path: "fuzz/Driver", swiftSettings: strict),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["FuzzHarness"], swiftSettings: strict),
        .testTarget(name: "MountTests", dependencies: ["keychainfs", "CSystem", "ControlChannel", "KeychainEngine", "TestSupport"], swiftSettings: strict),
    ]
)
