import Foundation

/// The built `strata` executable, beside the test bundle in the build folder.
let strataExecutable: URL = {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while folder.path != "/" && !FileManager.default.fileExists(atPath: folder.appendingPathComponent("strata").path) {
        folder.deleteLastPathComponent()
    }
    return folder.appendingPathComponent("strata")
}()

/// What a run of `strata` printed and how it ended.
struct Run {
    let status: Int32
    let output: String
    let error: String
}

/// Runs `strata` with `arguments` in `folder` and waits for it.
func strata(_ arguments: [String], in folder: URL) throws -> Run {
    let process = Process()
    process.executableURL = strataExecutable
    process.arguments = arguments
    process.currentDirectoryURL = folder
    let output = Pipe(), error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), error: String(decoding: err, as: UTF8.self))
}
