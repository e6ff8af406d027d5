// The PIM model at run time: `Data/PIM.xcdatamodeld` (seen by the target through the symlink
// `Sources/PIM/PIM.xcdatamodeld`) is embedded in the binary, so `pim` runs from anywhere without a
// resource folder; the ObjectGraphCodegen plugin generated the typed classes from the same file.
import Foundation
import ObjectGraph

/// The PIM model and its generated classes.
public enum PIMModel {
    /// The model's current version, read once per process, with the generated classes registered.
    public static let shared: ManagedObjectModel = {
        PIMClasses.register()
        do {
            return try ManagedObjectModel(xmlData: Data(PackageResources.contents), path: "Data/PIM.xcdatamodeld/PIM 7.xcdatamodel/contents")
        } catch {
            preconditionFailure("the PIM model embedded from Data/PIM.xcdatamodeld does not load: \(error)")
        }
    }()
}
