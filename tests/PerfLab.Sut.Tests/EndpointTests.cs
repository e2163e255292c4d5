using System.Text.Json;
using System.Text.Json.Nodes;
using PerfLab.Testing;

namespace PerfLab.Sut.Tests;

public sealed class EndpointTests(PostgresFixture postgres) : IClassFixture<PostgresFixture>
{
    public static TheoryData<string> Serializers => new() { "system-text-json", "system-text-json-sourcegen", "newtonsoft" };

    [Theory]
    [MemberData(nameof(Serializers))]
    public async Task CrudEndpoints_EachSerializer_ServeTheSeededData(string serializer)
    {
        var db = await postgres.CreateDatabaseAsync();
        await using var sut = await SutHost.StartAsync(db, new Dictionary<string, string> { ["Serializer"] = serializer });

        var page = await sut.GetJsonAsync("/customer/orders?pageNumber=1&pageSize=100");
        Assert.Equal(100, page.GetArrayLength());
        Assert.Equal(43659, page[0].GetProperty("salesOrderID").GetInt32());
        Assert.Equal("SO43659", page[0].GetProperty("salesOrderNumber").GetString());
        Assert.True(page[0].GetProperty("salesOrderDetails").GetArrayLength() > 0);
        Assert.Equal(26 + 1, page[0].EnumerateObject().Count()); // 26 columns and the details

        var order = await sut.GetJsonAsync("/customer/orders/43660");
        Assert.Equal(43660, order.GetProperty("salesOrderID").GetInt32());
        var detail = order.GetProperty("salesOrderDetails")[0];
        Assert.Equal(43660, detail.GetProperty("salesOrderID").GetInt32());
        var expectedLine = detail.GetProperty("unitPrice").GetDecimal() * (1 - detail.GetProperty("unitPriceDiscount").GetDecimal())
            * detail.GetProperty("orderQty").GetInt32();
        Assert.Equal(Math.Round(expectedLine, 4), Math.Round(detail.GetProperty("lineTotal").GetDecimal(), 4));

        Assert.Equal(31465, (await sut.GetJsonAsync("/customer/orders/ids")).GetArrayLength());
        Assert.Equal(31465, (await sut.GetJsonAsync("/customer/orders/count")).GetInt32());
        var products = await sut.GetJsonAsync("/customer/products?pageNumber=6&pageSize=100");
        Assert.Equal(4, products.GetArrayLength()); // 504 products: the sixth page holds the last four
        Assert.Equal(504, (await sut.GetJsonAsync("/customer/products/count")).GetInt32());
        Assert.Equal(serializer, (await sut.InfoAsync()).Serializer);
    }

    [Fact]
    public async Task Serializers_SameRequests_WriteTheSameDataWithTheSameNames()
    {
        var db = await postgres.CreateDatabaseAsync();
        var bodies = new Dictionary<string, List<JsonNode>>();
        foreach (var serializer in new[] { "system-text-json", "system-text-json-sourcegen", "newtonsoft" })
        {
            await using var sut = await SutHost.StartAsync(db, new Dictionary<string, string> { ["Serializer"] = serializer });
            var list = new List<JsonNode>();
            foreach (var path in new[] { "/customer/orders/43700", "/customer/orders?pageNumber=3&pageSize=20", "/customer/products?pageSize=50" })
            {
                var text = await sut.Client.GetStringAsync(path);
                list.Add(Normalize(JsonNode.Parse(text)!));
            }
            bodies[serializer] = list;
        }
        var reference = bodies["system-text-json"];
        foreach (var (serializer, list) in bodies)
        {
            for (var i = 0; i < reference.Count; i++)
            {
                Assert.True(JsonNode.DeepEquals(reference[i], list[i]), $"{serializer} differs from system-text-json in response {i}");
            }
        }
    }

    /// <summary>
    /// The details' link back to their order is written as null (System.Text.Json, IgnoreCycles or cleared) or left
    /// out (Newtonsoft's ReferenceLoopHandling.Ignore); numbers are compared by value (1.5000 = 1.5).
    /// </summary>
    private static JsonNode Normalize(JsonNode node)
    {
        switch (node)
        {
            case JsonObject obj:
                var copy = new JsonObject();
                foreach (var (key, value) in obj.OrderBy(p => p.Key, StringComparer.Ordinal))
                {
                    if (key == "salesOrderHeader")
                    {
                        continue;
                    }
                    copy[key] = value is null ? null : Normalize(value);
                }
                return copy;
            case JsonArray array:
                return new JsonArray(array.Select(v => v is null ? null : Normalize(v)).ToArray());
            case JsonValue value when value.GetValueKind() == JsonValueKind.Number:
                return JsonValue.Create(value.GetValue<decimal>() / 1.000000000000000000000000000000000m);
            default:
                return node.DeepClone();
        }
    }

    public static TheoryData<string> DataAccessModes => new() { "async", "sync", "sync-over-async" };

    [Theory]
    [MemberData(nameof(DataAccessModes))]
    public async Task CrudEndpoints_EachDataAccessMode_ReturnTheSameResults(string mode)
    {
        var db = await postgres.CreateDatabaseAsync();
        await using var sut = await SutHost.StartAsync(db, new Dictionary<string, string> { ["DataAccess"] = mode });

        Assert.Equal(mode, (await sut.InfoAsync()).DataAccess);
        Assert.Equal(31465, (await sut.GetJsonAsync("/customer/orders/count")).GetInt32());
        Assert.Equal(504, (await sut.GetJsonAsync("/customer/products/count")).GetInt32());
        var page = await sut.GetJsonAsync("/customer/orders?pageNumber=2&pageSize=10");
        Assert.Equal(43669, page[0].GetProperty("salesOrderID").GetInt32());
        var order = await sut.GetJsonAsync("/customer/orders/75123");
        Assert.Equal("SO75123", order.GetProperty("salesOrderNumber").GetString());
        using var missing = await sut.Client.GetAsync("/customer/orders/43658");
        Assert.Equal(System.Net.HttpStatusCode.NotFound, missing.StatusCode);
    }

    [Fact]
    public async Task DelayEndpoints_GivenMs_WaitAtLeastThatLong()
    {
        var db = await postgres.CreateDatabaseAsync();
        await using var sut = await SutHost.StartAsync(db);
        // Task.Delay's timers run on Linux's coarse monotonic clock and may fire up to one kernel tick early (4 ms at
        // HZ=250, 10 ms at HZ=100; seen: 118 ms for 120 on a loaded CI machine); Thread.Sleep and pg_sleep do not.
        const int Tick = 10;
        foreach (var (path, atLeast) in new[]
        {
            ("/weatherforecast-sync?ms=120", 120), ("/weatherforecast-async?ms=120", 120 - Tick),
            ("/diagnostics/sync?ms=150", 150), ("/diagnostics/async?ms=150", 150), ("/diagnostics/sync-over-async?ms=120", 120 - Tick),
        })
        {
            var clock = System.Diagnostics.Stopwatch.StartNew();
            using var response = await sut.Client.GetAsync(path);
            Assert.True(response.IsSuccessStatusCode, $"{path}: {(int)response.StatusCode}");
            Assert.True(clock.ElapsedMilliseconds >= atLeast, $"{path} answered after {clock.ElapsedMilliseconds} ms, expected at least {atLeast}");
        }
        var forecast = await sut.GetJsonAsync("/weatherforecast-async?ms=0");
        Assert.Equal(5, forecast.GetArrayLength());
    }

    [Fact]
    public async Task LockedConsoleLogging_CrudRequest_WritesOneLineThroughTheLockedProvider()
    {
        var db = await postgres.CreateDatabaseAsync();
        await using var sut = await SutHost.StartAsync(db, new Dictionary<string, string> { ["Logging"] = "locked-console" });
        await sut.GetJsonAsync("/customer/orders/43661");
        var log = await File.ReadAllTextAsync(sut.Process.LogFile);
        Assert.Contains("Information PerfLab.Sut.Logging.RequestLog[0] Served order 43661", log);
        Assert.Equal("locked-console", (await sut.InfoAsync()).Logging);
    }

    [Fact]
    public async Task SourceGeneratedLogging_CrudRequest_LogsWithItsEventId()
    {
        var db = await postgres.CreateDatabaseAsync();
        await using var sut = await SutHost.StartAsync(db, new Dictionary<string, string> { ["Logging"] = "source-generated" });
        await sut.GetJsonAsync("/customer/orders/43661");
        Assert.Equal("source-generated", (await sut.InfoAsync()).Logging);
        // The default console formatter writes "category[eventId]".
        var deadline = DateTime.UtcNow.AddSeconds(10);
        string log;
        do
        {
            log = await File.ReadAllTextAsync(sut.Process.LogFile);
        }
        while (!log.Contains("RequestLog[1002]", StringComparison.Ordinal) && DateTime.UtcNow < deadline && await Delay());
        Assert.Contains("PerfLab.Sut.Logging.RequestLog[1002]", log);
    }

    private static async Task<bool> Delay()
    {
        await Task.Delay(100);
        return true;
    }
}
