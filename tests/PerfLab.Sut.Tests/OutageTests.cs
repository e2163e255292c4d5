using System.Diagnostics;
using System.Net;
using PerfLab.Testing;

namespace PerfLab.Sut.Tests;

public sealed class OutageTests
{
    [Fact]
    public async Task Get_DatabaseStoppedMidTest_Answers503InTimeThenRecovers()
    {
        await using var postgres = await PostgresFixture.StartIsolatedAsync();
        await using var sut = await SutHost.StartAsync(postgres.ConnectionString,
            new Dictionary<string, string> { ["CommandTimeoutSeconds"] = "2" });
        Assert.Equal(504, (await sut.GetJsonAsync("/customer/products/count")).GetInt32());

        await postgres.StopAsync();
        foreach (var path in new[] { "/customer/orders/43659", "/customer/products?pageSize=5", "/diagnostics/async?ms=10" })
        {
            var clock = Stopwatch.StartNew();
            using var response = await sut.Client.GetAsync(path);
            Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
            Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(10), $"{path} took {clock.Elapsed.TotalSeconds:0.0} s to answer 503");
        }

        await postgres.StartAsync();
        var deadline = Stopwatch.StartNew();
        HttpStatusCode status;
        do
        {
            using var response = await sut.Client.GetAsync("/customer/orders/43659");
            status = response.StatusCode;
            if (status != HttpStatusCode.OK)
            {
                await Task.Delay(200);
            }
        }
        while (status != HttpStatusCode.OK && deadline.Elapsed < TimeSpan.FromSeconds(20));
        Assert.Equal(HttpStatusCode.OK, status);
    }

    [Fact]
    public async Task Get_NoDatabaseConfigured_Answers503NamingTheSetting()
    {
        await using var sut = await SutHost.StartAsync(null);
        using var response = await sut.Client.GetAsync("/customer/orders/43659");
        Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
        Assert.Contains("ConnectionStrings:AdventureWorks", await response.Content.ReadAsStringAsync());
    }
}
