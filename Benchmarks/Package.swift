// swift-tools-version:6.0
// Strata's benchmark harness: Strata beside raw SQLite and GRDB in one run (issue 4).
//   cd Benchmarks && swift run -c release strata-benchmarks [--json PATH] [--rounds N] [--quick] (--help for all)
//   PostgreSQL (issue 35): swift run -c release strata-pg-benchmarks --postgres URL
import PackageDescription

/// The Strata contender and the 50 generated schema models (condition STRATA_MODELS) need Strata's model
/// layer (`Model`, `db.objects`, `db.save`, `db.transaction`, `db.syncSchema`, `db.schemaPlan`). Set to
/// `false` to run raw SQLite and GRDB alone while that API is being changed.
let strataModels = true

let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Strata", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),   // Strata's; to quiet its schema log
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),   // Strata's CLI's
    ],
    targets: [
        .systemLibrary(name: "CSQLiteBench", providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CLibPQBench", pkgConfig: "libpq", providers: [.apt(["libpq-dev"]), .brew(["libpq"])]),
        .executableTarget(
            name: "strata-benchmarks",
            dependencies: [
                "CSQLiteBench",
                .product(name: "Strata", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strataModels ? [.define("STRATA_MODELS")] : []
        ),
        // Strata on PostgreSQL beside a raw libpq loop (issue 35):
        //   swift run -c release strata-pg-benchmarks --postgres URL [--rows N] [--rounds N] [--json PATH]
        .executableTarget(
            name: "strata-pg-benchmarks",
            dependencies: [
                "CLibPQBench",
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataPostgres", package: "Strata"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
