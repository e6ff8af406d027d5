// objc.io's Moody models and mapping models from the corpus, and a small Moody 4 store, for the
// tests that run `objectgraph store migrate --mapping`.
import Foundation
import ObjectGraph
import XCTest

extension XCTestCase {
    /// The corpus's models folder (`../shared/corpus/xcdatamodels` beside the checkout).
    var corpusModels: URL {
        repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/xcdatamodels")
    }

    var moodyBundle: URL { corpusModels.appendingPathComponent("objcio__core-data__Moody.xcdatamodeld") }

    /// Version `version` of Moody's model.
    func moodyModel(_ version: Int) -> URL {
        moodyBundle.appendingPathComponent("Moody \(version).xcdatamodel")
    }

    /// Moody's mapping model from version `from` to the next.
    func moodyMapping(_ from: Int) -> URL {
        corpusModels.appendingPathComponent("objcio__core-data__Moody.mappings/Moody_\(from)-Moody_\(from + 1).xcmappingmodel")
    }

    /// A Moody 4 SQLite store at `url`: Europe (150) with Germany, Africa (2) with Algeria, a mood
    /// rated 3 in each country.
    func makeMoody4Store(at url: URL) throws -> URL {
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try ManagedObjectModel(contentsOf: moodyModel(4)))
        let store = try coordinator.addPersistentStore(type: .sqlite, at: url)
        let context = ManagedObjectContext(concurrencyType: .mainQueue)
        context.persistentStoreCoordinator = coordinator
        let date = Date(timeIntervalSinceReferenceDate: 800_000_000)
        for (continentCode, countryCode) in [(Int16(150), Int16(276)), (2, 12)] {
            let continent = context.insertNewObject(forEntityName: "Continent")
            continent.setValuesForKeys(["numericISO3166Code": continentCode, "updatedAt": date])
            let country = context.insertNewObject(forEntityName: "Country")
            country.setValuesForKeys(["numericISO3166Code": countryCode, "updatedAt": date, "continent": continent])
            let mood = context.insertNewObject(forEntityName: "Mood")
            mood.setValuesForKeys(["date": date, "rating": Int16(3), "country": country, "continent": continent])
        }
        try context.save()
        context.reset()
        try coordinator.remove(store)
        return url
    }
}
