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
        // The engine with its model, for the engine benchmarks (bench/engine), a package of their own that
        // measures engine calls as a client links them. Not an API: its surface may change in any release.
        .library(name: "KeychainFSEngine", targets: ["KeychainFSEngine", "KeychainFSModel"]),
        // Apple's SecItem API for Swift on Linux: `import Security`, `import LocalAuthentication`, `import CryptoKit`. One
        // module per product, so that a user's package can alias each (docs/swift-api.md).
        .library(name: "Security", targets: ["Security"]),
        .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
        .library(name: "CryptoKit", targets: ["CryptoKit"]),
        // A simulated device per test, driven from Swift (docs/test-kit.md): for test targets.
        .library(name: "KeychainTesting", targets: ["KeychainTesting"]),
        // `device.mount()` and `device.environment`: the kit's device over FUSE and its control socket, for
        // tests of code that reads files or runs the CLI. A module of its own: only it needs libfuse.
        .library(name: "KeychainTestingMount", targets: ["KeychainTestingMount"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        // System libraries (found with pkg-config).
        .systemLibrary(name: "KeychainFSCFuse", pkgConfig: "fuse3", providers: [.apt(["libfuse3-dev"])]),
        .systemLibrary(name: "KeychainFSCSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "KeychainFSCSystem"),
        // How every program keychainfs starts is started (posix_spawn: its descriptors, signals, deadline).
        .target(name: "KeychainFSChildProcesses", dependencies: ["KeychainFSCSystem"], swiftSettings: strict),
        // OpenSSL 3 libcrypto: what swift-crypto lacks for Apple's SecKey algorithms (RSA paddings, SHA-224, 16-byte-IV GCM).
        .systemLibrary(name: "KeychainFSCOpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // sd-bus from libsystemd: the D-Bus library of the Secret Service (docs/secret-service.md).
        .systemLibrary(name: "KeychainFSCSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),

        // Crypto core: guarded key memory, AEAD, KDF, keyed hashes.
        .target(name: "KeychainFSSodium", dependencies: ["KeychainFSCSodium"], swiftSettings: strict),

        // TPM 2.0 through tpm2-tss's ESAPI (docs/tpm.md): the C calls, then sealing keys under the TPM.
        .target(
            name: "KeychainFSCTPM",
            linkerSettings: [
                .linkedLibrary("tss2-esys"), .linkedLibrary("tss2-tctildr"), .linkedLibrary("tss2-mu"),
                .linkedLibrary("tss2-rc"),
            ]),
        .target(
            name: "KeychainFSTPM", dependencies: ["KeychainFSCTPM", "KeychainFSModel", "KeychainFSSodium"],
            swiftSettings: strict),

        // The model: the versioned item schema, values, errors (OSStatus), parsed queries, what certificates
        // and keys say of themselves. No I/O.
        .target(
            name: "KeychainFSModel",
            dependencies: [
                .product(name: "SwiftASN1", package: "swift-asn1"), .product(name: "Crypto", package: "swift-crypto"),
            ], swiftSettings: strict),

        // The store: the SQLite item table, sealing, the keybag, device state, the vault directory.
        // Only the engine and sync import it.
        .target(
            name: "KeychainFSStore",
            dependencies: [
                "KeychainFSModel", "KeychainFSSodium", "KeychainFSTPM", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: strict),

        // The engine: every keychain rule. SecItem operations, read and write policy, authentication,
        // access rules, audit, backup. Every entrance reaches secrets and the device through it.
        .target(
            name: "KeychainFSEngine",
            dependencies: [
                "KeychainFSModel", "KeychainFSStore", "KeychainFSItemNaming", "KeychainFSSodium", "KeychainFSTPM",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),

        // Sync over git: records, the merge driver, the untrusted clone. On the engine's item calls.
        .target(
            name: "KeychainFSSync",
            dependencies: [
                "KeychainFSChildProcesses", "KeychainFSEngine", "KeychainFSStore", "KeychainFSModel",
                "KeychainFSSodium",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),

        // An item's name for people and paths: the mount's directories, audit lines and prompts all use it.
        .target(name: "KeychainFSItemNaming", dependencies: ["KeychainFSModel"], swiftSettings: strict),

        // The control socket: framing, requests, client and server.
        .target(
            name: "KeychainFSControlChannel",
            dependencies: ["KeychainFSModel", "KeychainFSCSystem", "KeychainFSEngine", "KeychainFSSync"],
            swiftSettings: strict),

        // SecItem calls on a vault: through its daemon, or in-process when none runs.
        .target(
            name: "KeychainFSClient",
            dependencies: ["KeychainFSSync", "KeychainFSModel", "KeychainFSEngine", "KeychainFSControlChannel"],
            swiftSettings: strict),

        // Apple's SecItem API (source-compatible) over KeychainFSClient; LAContext and friends.
        .target(
            name: "Security",
            dependencies: [
                "KeychainFSModel", "KeychainFSEngine", "KeychainFSClient", "KeychainFSCOpenSSL",
                "KeychainFSImportExport",
                .product(name: "Crypto", package: "swift-crypto"),
                // SecTrust's chain building and policies (docs/swift-api.md, "Certificate trust").
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strict),
        // Neither depends on the other, nor does the kit on either: a product whose module another product's
        // module depends on directly loses its alias in a user's package (docs/swift-api.md).
        .target(
            name: "LocalAuthentication",
            dependencies: [
                "KeychainFSModel", "KeychainFSClient", "KeychainFSEngine", "KeychainFSControlChannel",
            ],
            swiftSettings: strict),

        // swift-crypto re-exported, plus SecureEnclave over the simulated Secure Enclave; it names SecAccessControl
        // and LAContext through protocols of KeychainFSClient, so it depends on neither product either.
        .target(
            name: "CryptoKit",
            dependencies: [
                "KeychainFSModel", "KeychainFSClient", "KeychainFSEngine",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),

        // The keychain test kit: SimulatedDevice, its controls and the task-local binding of calls to it.
        .target(
            name: "KeychainTesting",
            dependencies: [
                "KeychainFSModel", "KeychainFSClient", "KeychainFSEngine", "KeychainFSChildProcesses",
            ],
            swiftSettings: strict),
        // The test kit's mount: a simulated device served in-process through the daemon's FUSE and control parts.
        .target(
            name: "KeychainTestingMount",
            dependencies: [
                "KeychainTesting", "KeychainFSModel", "KeychainFSEngine", "KeychainFSFuse", "KeychainFSDaemon",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // Key and certificate files through libcrypto: PKCS#12, encrypted PKCS#8 (security import/export, SecPKCS12Import).
        .target(
            name: "KeychainFSImportExport",
            dependencies: [
                "KeychainFSModel", "KeychainFSEngine", "KeychainFSCOpenSSL",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),

        // The FUSE frontend: paths and errnos translated into keychain calls.
        .target(
            name: "KeychainFSFuse",
            dependencies: [
                "KeychainFSChildProcesses",
                "KeychainFSModel", "KeychainFSItemNaming", "KeychainFSCFuse", "KeychainFSEngine", "KeychainFSSodium",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // The freedesktop Secret Service (D-Bus API 0.2) on the engine, through sd-bus (docs/secret-service.md).
        .target(
            name: "KeychainFSSecretService",
            dependencies: [
                "KeychainFSCSystemd", "KeychainFSCOpenSSL", "KeychainFSModel", "KeychainFSEngine",
                "KeychainFSItemNaming", "KeychainFSChildProcesses",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),

        // The daemon: one per mounted vault; wires engine, FUSE session, control socket, signals.
        .target(
            name: "KeychainFSDaemon",
            dependencies: [
                "KeychainFSItemNaming", "KeychainFSSync", "KeychainFSModel", "KeychainFSCSystem", "KeychainFSEngine",
                "KeychainFSFuse",
                "KeychainFSControlChannel", "KeychainFSSecretService",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // `kc://` references, `{{ }}` templates and env files of `keychainfs run` / `inject`: pure parsers.
        .target(
            name: "KeychainFSSecretReferences", dependencies: ["KeychainFSModel", "KeychainFSEngine"],
            swiftSettings: strict),

        // The command line: a thin client.
        .executableTarget(
            name: "keychainfs",
            dependencies: [
                "KeychainFSChildProcesses", "KeychainFSModel", "KeychainFSItemNaming", "KeychainFSSync",
                "KeychainFSCSystem", "KeychainFSEngine", "KeychainFSDaemon", "KeychainFSFuse",
                "KeychainFSControlChannel", "KeychainFSClient",
                "KeychainFSSecretReferences", "KeychainFSSodium",
                "KeychainFSImportExport", "KeychainFSSecretService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // git's and Docker's credential-helper protocols on internet passwords, as their macOS helpers keep them.
        .target(
            name: "KeychainFSCredentialHelpers",
            dependencies: ["KeychainFSModel", "KeychainFSCSystem", "KeychainFSEngine", "KeychainFSClient"],
            swiftSettings: strict),
        .executableTarget(
            name: "git-credential-keychainfs", dependencies: ["KeychainFSCredentialHelpers"],
            path: "Sources/GitCredentialHelper",
            swiftSettings: strict),
        .executableTarget(
            name: "docker-credential-keychainfs", dependencies: ["KeychainFSCredentialHelpers"],
            path: "Sources/DockerCredentialHelper",
            swiftSettings: strict),

        // Test helpers shared by the test targets (real certificates made with openssl).
        .target(
            name: "KeychainFSTestSupport",
            dependencies: [
                "KeychainFSChildProcesses", "KeychainFSModel", "KeychainFSControlChannel", "KeychainFSEngine",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(
            name: "KeychainEngineTests",
            dependencies: [
                "KeychainFSSync", "KeychainFSStore", "KeychainFSModel",
                "KeychainFSEngine", "KeychainFSSodium", "KeychainFSTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ], swiftSettings: strict),
        // iOS-style client code in a process of its own, for the lock tests.
        .executableTarget(
            name: "security-probe", dependencies: ["Security"], path: "Tests/SecurityProbe", swiftSettings: strict),
        // Face ID code (LAContext and protected items) in its own process, for the authentication tests.
        .executableTarget(
            name: "la-probe", dependencies: ["Security", "LocalAuthentication"], path: "Tests/LAProbe",
            swiftSettings: strict),
        // What real keychain wrappers reach for (issue 15), as a program run against a mounted vault, in
        // Swift 6 and Swift 5 modes (the same files).
        .executableTarget(
            name: "security-compat", dependencies: ["Security"], path: "Tests/SecurityCompat", swiftSettings: strict),
        .executableTarget(
            name: "security-compat-swift5", dependencies: ["Security"], path: "Tests/SecurityCompatSwift5",
            swiftSettings: [.swiftLanguageMode(.v5)]),
        // Seed 002 and Secure Enclave keys as iOS code writes them, in a process of their own, in Swift 6 and 5 modes.
        .executableTarget(
            name: "seckey-probe", dependencies: ["Security"], path: "Tests/SecKeyProbe", swiftSettings: strict),
        .executableTarget(
            name: "seckey-probe-swift5", dependencies: ["Security"], path: "Tests/SecKeyProbeSwift5",
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "SecurityAPITests",
            dependencies: [
                "Security", "LocalAuthentication", "KeychainFSTestSupport", "security-probe", "security-compat",
                "security-compat-swift5", "keychainfs",
                "la-probe", "seckey-probe", "seckey-probe-swift5",
                "KeychainFSControlChannel", "KeychainFSEngine", "KeychainFSModel",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "SecurityAPITestsSwift5", dependencies: ["Security", "LocalAuthentication", "KeychainFSTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v5), .define("SWIFT5_MODE")]),
        .testTarget(
            name: "CryptoKitTests",
            dependencies: ["CryptoKit", "Security", "LocalAuthentication", "KeychainTesting", "KeychainFSTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "KeychainTestingTests",
            dependencies: [
                "KeychainTesting", "KeychainTestingMount", "Security", "LocalAuthentication", "KeychainFSTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "WorkflowParserTests",
            dependencies: [
                "KeychainFSModel", "KeychainFSSecretReferences", "KeychainFSEngine", "KeychainFSTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "KeychainFSTests",
            dependencies: ["KeychainFSModel", "KeychainFSItemNaming", "KeychainFSFuse", "KeychainFSEngine"],
            swiftSettings: strict),
        .testTarget(
            name: "CredentialHelperTests",
            dependencies: [
                "KeychainFSCredentialHelpers", "KeychainFSCSystem", "Security", "KeychainFSTestSupport", "keychainfs",
                "git-credential-keychainfs",
                "docker-credential-keychainfs",
            ], exclude: ["git-http-server.py"], swiftSettings: strict),
        .testTarget(
            name: "SyncTests",
            dependencies: [
                "KeychainFSSync", "KeychainFSModel", "keychainfs", "KeychainFSClient", "KeychainFSEngine",
                "KeychainFSTestSupport",
            ], swiftSettings: strict),
        // Fuzzing (SPEC §8): one target per parser of outside bytes (fuzz/Harness), libFuzzer's driver or a replayer
        // (fuzz/Driver; fuzz/build.sh builds it with the sanitizers), and the committed corpora replayed as tests.
        .target(
            name: "KeychainFSFuzzHarness",
            dependencies: [
                "KeychainFSSecretService", "KeychainFSSync", "KeychainFSModel", "KeychainFSItemNaming",
                "KeychainFSStore", "KeychainFSControlChannel",
                "KeychainFSEngine", "KeychainFSFuse", "KeychainFSSodium", "KeychainFSSecretReferences",
                "KeychainFSImportExport",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "fuzz/Harness", swiftSettings: strict),
        .executableTarget(
            name: "keychainfs-fuzz", dependencies: ["KeychainFSFuzzHarness"], path: "fuzz/Driver", swiftSettings: strict
        ),
        .testTarget(name: "FuzzCorpusTests", dependencies: ["KeychainFSFuzzHarness"], swiftSettings: strict),
        // The Secret Service through the clients Debian ships (each test on a dbus-daemon of its own; Clients/ are Python scripts).
        .testTarget(
            name: "SecretServiceTests",
            dependencies: [
                "keychainfs", "security-probe", "KeychainFSSecretService", "KeychainFSEngine", "KeychainFSTestSupport",
            ],
            exclude: ["Clients"],
            swiftSettings: strict),
        .testTarget(
            name: "MountTests",
            dependencies: [
                "KeychainFSFuse", "KeychainFSChildProcesses", "KeychainFSModel", "keychainfs", "KeychainFSCSystem",
                "KeychainFSControlChannel",
                "KeychainFSClient",
                "KeychainFSEngine", "KeychainFSSync",
                "KeychainTesting", "KeychainFSTestSupport",
            ],
            swiftSettings: strict),
    ]
)
