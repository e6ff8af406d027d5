// ObjectGraph: a model-driven object graph and persistence framework, the system Apple's
// Core Data is, written for Linux in Swift. This file holds what belongs to the whole module.

/// The version of the ObjectGraph framework, written into the metadata of the stores it creates.
public let objectGraphFrameworkVersion = "0.1.0"
