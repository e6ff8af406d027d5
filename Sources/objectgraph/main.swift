import ObjectGraph
print("objectgraph \(objectGraphFrameworkVersion)")
