import KeychainFSFuzzHarness
import Foundation

#if FUZZING
    /// libFuzzer's entry when its own `main` is not linked (SwiftPM names the executable's entry point).
    @_silgen_name("LLVMFuzzerRunDriver")
    private func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// The target of this process, chosen by `FUZZ_TARGET` (one binary serves every target).
    nonisolated(unsafe) private var selectedTarget = FuzzTarget.codec
#endif

/// `keychainfs-fuzz`: built with `-DFUZZING` and the sanitizers (fuzz/build.sh), it is libFuzzer running
/// the target named by `FUZZ_TARGET`; built plainly, it replays inputs and writes the seed corpora.
@main struct FuzzDriver {
    static func main() {
        #if FUZZING
            guard let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"], let target = FuzzTarget(rawValue: name)
            else {
                fail("set FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: " "))")
            }
            selectedTarget = target
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(
                LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in
                    do { try selectedTarget.run(Data(bytes: bytes!, count: count)) } catch {
                        FileHandle.standardError.write(Data("property violated: \(error)\n".utf8))
                        abort()
                    }
                    return 0
                })
        #else
            let arguments = Array(CommandLine.arguments.dropFirst())
            switch arguments.first {
            case "replay" where arguments.count >= 3:
                guard let target = FuzzTarget(rawValue: arguments[1]) else { fail("unknown target \(arguments[1])") }
                replay(target, paths: Array(arguments.dropFirst(2)))
            case "make-seeds" where arguments.count == 2:
                do { try SeedCorpus.write(into: arguments[1]) } catch { fail("\(error)") }
            case "make-fixtures" where arguments.count == 2:
                do { try SeedCorpus.writeFixtures(into: arguments[1]) } catch { fail("\(error)") }
            default:
                fail("usage: keychainfs-fuzz replay TARGET FILE|DIR... | make-seeds DIR | make-fixtures DIR")
            }
        #endif
    }

    /// Runs every input file once; a property violation fails the run (a crash ends it by itself).
    static func replay(_ target: FuzzTarget, paths: [String]) {
        var count = 0
        for file in paths.flatMap(files) {
            guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
            do { try target.run(data) } catch { fail("\(file): property violated: \(error)") }
            count += 1
        }
        print("\(target.rawValue): \(count) inputs replayed")
    }

    static func files(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { path + "/" + $0 }
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("keychainfs-fuzz: \(message)\n".utf8))
        exit(2)
    }
}
