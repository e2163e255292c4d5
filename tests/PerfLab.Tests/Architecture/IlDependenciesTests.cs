namespace PerfLab.Tests.Architecture;

public sealed class IlDependenciesTests
{
    private const string Users = "PerfLab.Tests.Architecture.IlSamples.Users.";
    private const string Used = "PerfLab.Tests.Architecture.IlSamples.Used.";

    // Read once for the class: the test assembly is a few MB and every theory row asks about the same graph.
    private static readonly Lazy<IReadOnlyCollection<TypeDependency>> Graph =
        new(() => IlDependencies.Read(typeof(IlDependenciesTests).Assembly.Location));

    [Theory]
    [InlineData("BodyUser", "ByBody")]
    [InlineData("LambdaUser", "ByLambda")]
    [InlineData("AsyncUser", "ByAsync")]
    [InlineData("GenericUser", "ByGenericArgument")]
    [InlineData("AttributeUser", "MarkerAttribute")]
    [InlineData("AttributeUser", "ByAttributeArgument")]
    [InlineData("CatchUser", "ByCatch")]
    [InlineData("BaseUser", "ByBase")]
    [InlineData("StaticFieldUser", "ByStaticField")]
    public void Read_SampleUse_FoundAndChargedToTheWritingClass(string user, string used)
    {
        var dependency = Assert.Single(Graph.Value, d => d.FromType == Users + user && d.ToType == Used + used);

        Assert.Equal("PerfLab.Tests.Architecture.IlSamples.Users", dependency.FromNamespace);
        Assert.Equal("PerfLab.Tests.Architecture.IlSamples.Used", dependency.ToNamespace);
    }

    [Fact]
    public void Read_SampleUsers_NoUseTheyDoNotMake()
    {
        var uses = Graph.Value.Where(d => d.FromType == Users + "BodyUser").Select(d => d.ToType);

        // BodyUser names ByBody and nothing else of ours; the compiler's own types are no one's folder.
        Assert.Equal([Used + "ByBody"], uses);
    }
}
