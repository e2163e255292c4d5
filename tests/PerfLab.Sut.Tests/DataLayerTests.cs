using PerfLab.Testing;

namespace PerfLab.Sut.Tests;

public sealed class DataLayerTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    /// <summary>Seed 000's pages and the feeds, including a last, short page and an order with many details.</summary>
    private static readonly string[] Paths =
    [
        "/customer/orders?pageNumber=1&pageSize=100",
        "/customer/orders?pageNumber=315&pageSize=100",
        "/customer/orders/43660",
        "/customer/orders/51721",
        "/customer/products?pageNumber=1&pageSize=100",
        "/customer/products?pageNumber=6&pageSize=100",
        "/customer/orders/ids",
        "/customer/orders/count",
        "/customer/products/count",
    ];

    public static TheoryData<string> Serializers => new() { "system-text-json", "system-text-json-sourcegen", "newtonsoft" };

    [Theory]
    [MemberData(nameof(Serializers))]
    public async Task Pages_AdoNetAndEfCore_WriteByteForByteTheSameJson(string serializer)
    {
        var db = await postgres.CreateDatabaseAsync();
        var bodies = new Dictionary<string, List<string>>();
        foreach (var layer in new[] { "ef-core", "ado-net" })
        {
            await using var sut = await SutHost.StartAsync(db, new Dictionary<string, string> { ["DataLayer"] = layer, ["Serializer"] = serializer });
            Assert.Equal(layer, (await sut.InfoAsync()).DataLayer);
            var list = new List<string>();
            foreach (var path in Paths)
            {
                list.Add(await sut.Client.GetStringAsync(path));
            }
            bodies[layer] = list;
        }
        for (var i = 0; i < Paths.Length; i++)
        {
            Assert.True(bodies["ef-core"][i] == bodies["ado-net"][i],
                $"{Paths[i]} with {serializer}: ado-net wrote {bodies["ado-net"][i].Length} chars, ef-core {bodies["ef-core"][i].Length}; " +
                $"first difference at {FirstDifference(bodies["ef-core"][i], bodies["ado-net"][i])}");
        }
        Assert.Contains("\"salesOrderDetails\":[{", bodies["ado-net"][0], StringComparison.OrdinalIgnoreCase);
    }

    public static TheoryData<string> DataAccessModes => new() { "async", "sync", "sync-over-async" };

    [Theory]
    [MemberData(nameof(DataAccessModes))]
    public async Task AdoNet_EachDataAccessMode_ServesThePagesAndAnswers404ForAMissingOrder(string mode)
    {
        var db = await postgres.CreateDatabaseAsync();
        await using var sut = await SutHost.StartAsync(db, new Dictionary<string, string> { ["DataLayer"] = "ado-net", ["DataAccess"] = mode });

        var info = await sut.InfoAsync();
        Assert.Equal(("ado-net", mode), (info.DataLayer, info.DataAccess));
        Assert.Equal(31465, (await sut.GetJsonAsync("/customer/orders/count")).GetInt32());
        var page = await sut.GetJsonAsync("/customer/orders?pageNumber=2&pageSize=10");
        Assert.Equal(10, page.GetArrayLength());
        Assert.Equal(43669, page[0].GetProperty("salesOrderID").GetInt32());
        var order = await sut.GetJsonAsync("/customer/orders/75123");
        Assert.Equal("SO75123", order.GetProperty("salesOrderNumber").GetString());
        using var missing = await sut.Client.GetAsync("/customer/orders/43658");
        Assert.Equal(System.Net.HttpStatusCode.NotFound, missing.StatusCode);
    }

    [Fact]
    public async Task AdoNet_DatabaseWaitEndpoints_WaitAtLeastTheAskedTime()
    {
        var db = await postgres.CreateDatabaseAsync();
        await using var sut = await SutHost.StartAsync(db, new Dictionary<string, string> { ["DataLayer"] = "ado-net" });
        foreach (var path in new[] { "/diagnostics/sync?ms=150", "/diagnostics/async?ms=150" })
        {
            var clock = System.Diagnostics.Stopwatch.StartNew();
            var body = await sut.GetJsonAsync(path);
            Assert.True(clock.ElapsedMilliseconds >= 150, $"{path} answered after {clock.ElapsedMilliseconds} ms, expected at least 150");
            Assert.Equal(150, body.GetProperty("ms").GetInt32());
        }
    }

    [Fact]
    public async Task Info_DataLayer_ReportsTheDefaultTheChosenAndTheOnesThisBuildOffers()
    {
        await using (var sut = await SutHost.StartAsync(null))
        {
            var info = await sut.InfoJsonAsync();
            Assert.Equal("ef-core", info.GetProperty("dataLayer").GetString());
            Assert.Equal(["ef-core", "ado-net"], info.GetProperty("dataLayers").EnumerateArray().Select(e => e.GetString()!).ToArray());
            var versions = info.GetProperty("dataLayerVersions");
            Assert.Equal(PinnedVersions.Of("net10.0", "Microsoft.EntityFrameworkCore"), versions.GetProperty("efCore").GetString());
            Assert.Equal(PinnedVersions.Of("net10.0", "Npgsql.EntityFrameworkCore.PostgreSQL"), versions.GetProperty("efCoreProvider").GetString());
        }
        var asked = new Dictionary<string, string> { ["DataLayer"] = "ado-net" };
        await using (var sut = await SutHost.StartAsync(null, asked))
        {
            var info = await sut.InfoAsync();
            Assert.Equal("ado-net", info.DataLayer);
            Assert.Empty(VariantCheck.Mismatches(new SutLaunch(asked, new Dictionary<string, string>(), null), info));
            Assert.Contains("DataLayer: asked for ef-core, /info reports ado-net",
                VariantCheck.Mismatches(new SutLaunch(new Dictionary<string, string> { ["DataLayer"] = "ef-core" }, new Dictionary<string, string>(), null), info));
        }
    }

    private static string FirstDifference(string a, string b)
    {
        var i = 0;
        while (i < a.Length && i < b.Length && a[i] == b[i])
        {
            i++;
        }
        static string Around(string s, int at) => s.Substring(Math.Max(0, at - 60), Math.Min(120, s.Length - Math.Max(0, at - 60)));
        return $"{i}: ef-core …{Around(a, i)}… ado-net …{Around(b, i)}…";
    }
}
