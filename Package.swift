// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],   // Duration, Clock; Observation support is gated on macOS 14 / iOS 17
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        // The PostgreSQL engine (issue 35, in progress: the driver only). A product of its own, so that
        // SQLite users pull nothing new: `Strata` does not depend on libpq.
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        .executable(name: "strata-demo", targets: ["StrataDemo"]),
        .executable(name: "strata", targets: ["StrataCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .target(
            name: "Strata",
            dependencies: ["CSQLite", .product(name: "Logging", package: "swift-log")]
        ),
        // PostgreSQL's client library, found with pkg-config like CSQLite.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        .target(name: "StrataPostgres", dependencies: ["Strata", "CLibPQ"]),
        .executableTarget(name: "StrataDemo", dependencies: ["Strata"]),
        // Schema inspection and model generation, kept apart from the command line so tests can reach it.
        .target(name: "StrataTools", dependencies: ["Strata"]),
        // The `strata` tool. The module is not named "strata": it would clash with "Strata" on
        // case-insensitive file systems (macOS), where both would be "strata.swiftmodule".
        .executableTarget(
            name: "StrataCLI",
            dependencies: ["StrataTools", "Strata", "StrataPostgres", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/strata"
        ),
        // Temporary databases (SQLite files, or PostgreSQL schemas when STRATA_TEST_ENGINE=postgresql) and the
        // location of ../shared/fixtures, shared by the test targets.
        .target(name: "StrataTestSupport", dependencies: ["Strata", "StrataPostgres"], path: "Tests/StrataTestSupport"),
        // The README's pool calls in top-level code (a main.swift), run by Review19TopLevelTests (issue 36).
        .executableTarget(name: "StrataTopLevelFixture", dependencies: ["Strata"], path: "Tests/TopLevelFixture"),
        .testTarget(name: "StrataTests", dependencies: ["Strata", "StrataTestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "StrataToolsTests", dependencies: ["StrataTools", "Strata", "StrataTestSupport"]),
        // The DocC articles' and README's examples, compiled and run (their own target: the examples' model names).
        .testTarget(name: "StrataDocTests", dependencies: ["Strata", "StrataPostgres", "StrataTestSupport"]),
        // The PostgreSQL driver against a server named by STRATA_POSTGRES_URL (skipped without one).
        .testTarget(name: "StrataPostgresTests", dependencies: ["StrataPostgres", "Strata", "StrataTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
