using PerfLab.Common;
using PerfLab.Counters;

namespace PerfLab.Tests.Counters;

public sealed class CounterCatalogTests
{
    [Theory]
    [InlineData(new[] { "System.Runtime" }, new[] { "System.Runtime" })]
    [InlineData(new[] { "microsoft.aspnetcore.hosting, System.Runtime" }, new[] { "Microsoft.AspNetCore.Hosting", "System.Runtime" })]
    [InlineData(new[] { "System.Runtime", "Microsoft-AspNetCore-Server-Kestrel,system.runtime" }, new[] { "System.Runtime", "Microsoft-AspNetCore-Server-Kestrel" })]
    [InlineData(new[] { "npgsql,System.Runtime" }, new[] { "Npgsql", "System.Runtime" })]
    public void ParseProviders_KnownNamesAnyCaseAndSeparator_CanonicalNamesOnceEach(string[] tokens, string[] expected)
    {
        var providers = CounterCatalog.ParseProviders(tokens, out var error);

        Assert.Null(error);
        Assert.Equal(expected, providers);
    }

    [Theory]
    [InlineData("System.Net.Http", "'System.Net.Http' is not a counter provider")]
    [InlineData("System.Runtime[cpu-usage]", "not single counters in brackets")]
    [InlineData(" , ", "name at least one provider")]
    public void ParseProviders_UnknownOrEmpty_NullAndAMessage(string token, string message)
    {
        var providers = CounterCatalog.ParseProviders([token], out var error);

        Assert.Null(providers);
        Assert.Contains(message, error);
        Assert.Contains("Microsoft.AspNetCore.Hosting", error);
        Assert.Contains("Npgsql", error);
    }

    [Fact]
    public void Of_Runtime_TheRuntimeCountersAndStarvationInjections()
    {
        var names = CounterCatalog.Of([CounterCatalog.RuntimeEventSource]).Select(d => d.Name).ToList();

        Assert.Equal(16, names.Count);
        Assert.Contains(CounterNames.MethodsJitted, names);
        Assert.Contains("time-in-jit", names);
        Assert.Equal("cpu-usage", names[0]);
        Assert.Equal(CounterCatalog.StarvationCounter, names[^1]);
        Assert.DoesNotContain("requests-per-second", names);
        Assert.Equal(["requests-per-second", "current-requests"],
            CounterCatalog.Of([CounterCatalog.HostingEventSource]).Select(d => d.Name));
    }

    [Fact]
    public void Of_Npgsql_TheDatabaseClientsCountersUnderBothNpgsqlGenerations()
    {
        var npgsql = CounterCatalog.Of([CounterCatalog.NpgsqlMeter]);

        Assert.Equal(8, npgsql.Count);
        Assert.All(npgsql, d => Assert.StartsWith("npgsql-", d.Name, StringComparison.Ordinal));
        Assert.All(npgsql, d => Assert.Equal(2, d.Readings.Select(r => r.Instrument).Distinct().Count()));
        var commands = npgsql.Single(d => d.Name == CounterNames.NpgsqlCommands);
        Assert.Equal(["db.client.operation.duration", "db.client.commands.duration"], commands.Readings.Select(r => r.Instrument));
        Assert.DoesNotContain(CounterCatalog.StarvationCounter, npgsql.Select(d => d.Name));
    }
}
