import Foundation
import StrataTestSupport
import Testing

// Issue 36, point 9: runs Tests/TopLevelFixture (an executable whose main.swift uses the README's pool
// shapes in top-level code) and checks that `try await pool.write { }` there is the async write: the
// main actor runs other work while its closure runs (the caller is suspended), as in an async function;
// the blocking form, in a synchronous function, holds the main thread. (Before, the top-level calls
// resolved to the blocking overloads, with only a warning.)
@Suite struct Review19TopLevelTests {
    @Test func topLevelAwaitUsesTheAsyncPoolCalls() throws {
        let temp = try TemporaryDatabase()
        try temp.db.close()
        let executable = strataExecutable.deletingLastPathComponent().appendingPathComponent("StrataTopLevelFixture")
        let process = Process()
        process.executableURL = executable
        process.arguments = [temp.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: data, as: UTF8.self) == """
            top-level write let the main actor run: true
            top-level read let the main actor run: true
            async function write let the main actor run: true
            synchronous function blocking write let the main actor run: false

            """)
    }
}
