using PerfLab.Common;
using PerfLab.Testing;

namespace PerfLab.Sut.Tests;

/// <summary>
/// The net8.0 and net9.0 builds, published self-contained by perflab as the framework experiment publishes them (the
/// first test to need one pays its publish, about a minute; later runs reuse it until the SUT's sources change). Each
/// build serves the pages through EF Core, with the EF Core, provider and Npgsql that Directory.Packages.props pins for
/// its framework, and writes byte-for-byte the JSON its ADO.NET data layer writes.
/// </summary>
public sealed class FrameworkBuildTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    private static readonly string[] Paths =
    [
        "/customer/orders?pageNumber=1&pageSize=100",
        "/customer/orders?pageNumber=315&pageSize=100",
        "/customer/orders/51721",
        "/customer/products?pageNumber=1&pageSize=100",
        "/customer/orders/count",
    ];

    public static TheoryData<string, string> Builds => new() { { "net8.0", ".NET 8" }, { "net9.0", ".NET 9" } };

    [Theory]
    [MemberData(nameof(Builds))]
    public async Task FrameworkBuild_EfCoreAndAdoNet_LoadThePinnedVersionsAndWriteTheSameJson(string framework, string runtime)
    {
        var db = await postgres.CreateDatabaseAsync();
        var bodies = new Dictionary<string, List<string>>();
        foreach (var layer in new[] { "ef-core", "ado-net" })
        {
            var asked = new Dictionary<string, string> { ["DataLayer"] = layer };
            await using var sut = await SutHost.StartAsync(db, asked, framework: framework);
            var info = await sut.InfoAsync();
            Assert.StartsWith(runtime, info.Runtime);
            Assert.Empty(VariantCheck.Mismatches(new SutLaunch(asked, new Dictionary<string, string>(), db, framework), info));
            var list = new List<string>();
            foreach (var path in Paths)
            {
                list.Add(await sut.Client.GetStringAsync(path));
            }
            bodies[layer] = list;
            // After the pages: what the process has loaded by then is what served them.
            var versions = (await sut.InfoAsync()).DataLayerVersions!;
            Assert.Equal(PinnedVersions.Of(framework, "Npgsql"), versions.Npgsql);
            if (layer == "ef-core")
            {
                Assert.Equal(PinnedVersions.Of(framework, "Microsoft.EntityFrameworkCore"), versions.EfCore);
                Assert.Equal(PinnedVersions.Of(framework, "Npgsql.EntityFrameworkCore.PostgreSQL"), versions.EfCoreProvider);
            }
        }
        for (var i = 0; i < Paths.Length; i++)
        {
            Assert.True(bodies["ef-core"][i] == bodies["ado-net"][i],
                $"{framework} {Paths[i]}: ado-net wrote {bodies["ado-net"][i].Length} chars, ef-core {bodies["ef-core"][i].Length}");
        }
        Assert.Contains("\"salesOrderDetails\":[{", bodies["ef-core"][0], StringComparison.OrdinalIgnoreCase);
        Assert.Equal("31465", bodies["ef-core"][4]);
    }

    [Fact]
    public async Task FrameworkBuild_UnknownDataLayer_RefusesToStartNamingTheAllowedOnes()
    {
        var ex = await Assert.ThrowsAsync<PerfLabException>(() =>
            SutHost.StartAsync(null, new Dictionary<string, string> { ["DataLayer"] = "dapper" }, framework: "net8.0"));
        Assert.Contains("exited with code 2", ex.Message);
        Assert.Contains("Sut:DataLayer = 'dapper' is not valid; allowed: ef-core, ado-net.", ex.Message);
    }
}
