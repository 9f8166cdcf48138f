import Foundation
import StrataTestSupport
import Testing
@testable import Strata

// Issue 36, point 6: task locals inside async pool closures.

private enum R19pContext {
    @TaskLocal static var requestID: String?
}

@Suite struct Review19PoolTests {
    @Test func taskLocalsReadTheSameInsideAsyncReadsAndWrites() async throws {
        let file = try PoolFile(readers: 2); let pool = file.pool
        let seen = try await R19pContext.$requestID.withValue("req-42") {
            let read = try await pool.read { _ in R19pContext.requestID }
            let write = try await pool.write { _ in R19pContext.requestID }
            // Nested bindings and concurrent calls each see their own task's value.
            async let a = R19pContext.$requestID.withValue("a") { try await pool.read { _ in R19pContext.requestID } }
            async let b = R19pContext.$requestID.withValue("b") { try await pool.write { _ in R19pContext.requestID } }
            return [read, write, try await a, try await b]
        }
        #expect(seen == ["req-42", "req-42", "a", "b"])
        // Outside the binding: nothing, inside the closures too.
        #expect(try await pool.read { _ in R19pContext.requestID } == nil)
    }
}
