// The fixture's model, shipped as a resource of the target, as an app ships its model; the
// ObjectGraphCodegen plugin generates the target's classes from the same bundle at build time.
import Foundation
import ObjectGraph

/// The Gardening model of the fixture.
public enum GardeningModel {
    /// The model bundle among the target's resources.
    public static var url: URL {
        Bundle.module.url(forResource: "Gardening", withExtension: "xcdatamodeld")!
    }

    /// Reads the model's current version.
    public static func load() throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: url)
    }
}
