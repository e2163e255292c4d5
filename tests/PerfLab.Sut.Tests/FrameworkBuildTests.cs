using PerfLab.Common;
using PerfLab.Testing;

namespace PerfLab.Sut.Tests;

/// <summary>
/// The net8.0 build, published self-contained by perflab as the framework experiment publishes it (the first test to
/// need it pays the publish, about a minute; later runs reuse it until the SUT's sources change).
/// </summary>
public sealed class FrameworkBuildTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    private const string Framework = "net8.0";

    [Fact]
    public async Task Net8Build_OrdersAndProductsPages_ComeFromPostgreSqlAsTheNet10EfCorePagesDo()
    {
        var db = await postgres.CreateDatabaseAsync();
        string[] paths = ["/customer/orders?pageNumber=1&pageSize=100", "/customer/orders/43700", "/customer/products?pageNumber=1&pageSize=100"];
        var reference = new List<string>();
        await using (var net10 = await SutHost.StartAsync(db, new Dictionary<string, string> { ["DataLayer"] = "ef-core" }))
        {
            foreach (var path in paths)
            {
                reference.Add(await net10.Client.GetStringAsync(path));
            }
        }

        var asked = new Dictionary<string, string> { ["DataLayer"] = "ado-net" };
        await using var net8 = await SutHost.StartAsync(db, asked, framework: Framework);
        var info = await net8.InfoJsonAsync();
        Assert.Equal(".NETCoreApp,Version=v8.0", info.GetProperty("targetFramework").GetString());
        Assert.StartsWith(".NET 8", info.GetProperty("runtime").GetString());
        Assert.Equal("ado-net", info.GetProperty("dataLayer").GetString());
        Assert.Equal(["ado-net"], info.GetProperty("dataLayers").EnumerateArray().Select(e => e.GetString()!).ToArray());
        Assert.True(info.GetProperty("databaseConfigured").GetBoolean());
        Assert.Empty(VariantCheck.Mismatches(new SutLaunch(asked, new Dictionary<string, string>(), db, Framework), await net8.InfoAsync()));
        for (var i = 0; i < paths.Length; i++)
        {
            Assert.Equal(reference[i], await net8.Client.GetStringAsync(paths[i]));
        }
    }

    [Fact]
    public async Task Net8Build_EfCoreAsked_RefusesToStartNamingWhatIsMissing()
    {
        var ex = await Assert.ThrowsAsync<PerfLabException>(() =>
            SutHost.StartAsync(null, new Dictionary<string, string> { ["DataLayer"] = "ef-core" }, framework: Framework));
        Assert.Contains("exited with code 2", ex.Message);
        Assert.Contains("Sut:DataLayer = 'ef-core' is not available in this net8.0 build", ex.Message);
        Assert.Contains("Allowed here: ado-net.", ex.Message);
    }
}
