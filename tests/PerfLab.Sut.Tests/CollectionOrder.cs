// The long parallel collections start first (see LongestFirstCollections).
[assembly: TestCollectionOrderer("PerfLab.Testing.LongestFirstCollections", "PerfLab.Sut.Tests")]
