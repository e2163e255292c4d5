using Npgsql;
using Microsoft.EntityFrameworkCore;
using PerfLab.Sut.Hosting;

namespace PerfLab.Sut.Data;

/// <summary>
/// Runs each query the way the active DataAccess variant asks: awaited, blocking (the synchronous ToList, Read, ...),
/// or blocking on the async call with <c>.Result</c> (the sync-over-async anti-pattern of seed 004).
/// </summary>
public sealed class DataAccess(EffectiveVariants variants, DatabaseSettings settings)
{
    /// <param name="query">The query, run awaited (true) or blocking (false); a blocking run completes before it returns.</param>
    public Task<T> QueryAsync<T>(Func<bool, CancellationToken, Task<T>> query, CancellationToken ct)
    {
        settings.EnsureConfigured();
        return variants.DataAccess switch
        {
            DataAccessMode.Sync => Task.FromResult(query(false, ct).GetAwaiter().GetResult()),
            DataAccessMode.SyncOverAsync => Task.FromResult(query(true, ct).Result),
            _ => query(true, ct),
        };
    }
}

/// <summary>Where the database is and how long a command may take.</summary>
public sealed record DatabaseSettings(string? ConnectionString, int CommandTimeoutSeconds)
{
    public const string ConnectionStringName = "AdventureWorks";

    public void EnsureConfigured()
    {
        if (string.IsNullOrWhiteSpace(ConnectionString))
        {
            throw new DatabaseNotConfiguredException($"ConnectionStrings:{ConnectionStringName} is not set; start the "
                + "SUT with `perflab sut start`.");
        }
    }
}

public sealed class DatabaseNotConfiguredException(string message) : Exception(message);

public static class DataRegistration
{
    public static DatabaseSettings AddAdventureWorks(this WebApplicationBuilder builder, EffectiveVariants variants)
    {
        var raw = builder.Configuration.GetConnectionString(DatabaseSettings.ConnectionStringName);
        string? connectionString = null;
        if (!string.IsNullOrWhiteSpace(raw))
        {
            // Bound every wait so that a database that went away answers 503 in time instead of hanging.
            var csb = new NpgsqlConnectionStringBuilder(raw);
            if (!raw.Contains("Timeout", StringComparison.OrdinalIgnoreCase))
            {
                csb.Timeout = variants.CommandTimeoutSeconds;
                csb.CommandTimeout = variants.CommandTimeoutSeconds;
            }
            connectionString = csb.ConnectionString;
        }
        var settings = new DatabaseSettings(connectionString, variants.CommandTimeoutSeconds);
        builder.Services.AddSingleton(settings);
        builder.Services.AddSingleton<DataAccess>();
        if (variants.DataLayer == DataLayerKind.AdoNet)
        {
            builder.Services.AddSingleton(_ => NpgsqlDataSource.Create(connectionString ?? "Host=unconfigured"));
            builder.Services.AddSingleton<IAdventureWorksQueries, AdoNetQueries>();
            return settings;
        }
        AddEfCore(builder.Services, connectionString, variants.CommandTimeoutSeconds);
        return settings;
    }

    private static void AddEfCore(IServiceCollection services, string? connectionString, int commandTimeoutSeconds)
    {
        void Configure(DbContextOptionsBuilder options) =>
            options.UseNpgsql(connectionString ?? "Host=unconfigured", npgsql => npgsql.CommandTimeout(commandTimeoutSeconds));
        // Configured once now, not only at the first query: the provider's code runs (so its assembly is loaded) and
        // /info names the provider from the start. (A bare typeof of a provider type did not load it on net9.0.)
        Configure(new DbContextOptionsBuilder<AdventureWorks>());
        services.AddDbContext<AdventureWorks>(Configure);
        services.AddScoped<IAdventureWorksQueries, EfCoreQueries>();
    }
}
