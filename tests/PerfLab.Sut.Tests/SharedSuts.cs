using PerfLab.Testing;

namespace PerfLab.Sut.Tests;

/// <summary>
/// One SUT for a whole test class whose tests only read and run one after another (xunit runs a class's tests in
/// turn): a SUT started a test cost a process start each (about 2 CPU-seconds to its first EF Core page), and with a
/// database clone each, BadInputTests' 22 took about 100 s of this assembly's time on CI (2026-12-01).
/// </summary>
public abstract class SharedSut : IAsyncLifetime
{
    private SutHost? _sut;

    public SutHost Sut => _sut ?? throw new InvalidOperationException("the class's SUT has not started");

    public async Task InitializeAsync() => _sut = await StartAsync();

    public virtual async Task DisposeAsync()
    {
        if (_sut is not null)
        {
            await _sut.DisposeAsync();
        }
    }

    protected abstract Task<SutHost> StartAsync();
}

/// <summary>The SUT on its default settings on a fresh clone of the seeded database.</summary>
public sealed class SeededSut : SharedSut
{
    private readonly PostgresFixture _postgres = new();

    protected override async Task<SutHost> StartAsync()
    {
        await _postgres.InitializeAsync();
        return await SutHost.StartAsync(await _postgres.CreateDatabaseAsync());
    }

    public override async Task DisposeAsync()
    {
        await base.DisposeAsync();
        await _postgres.DisposeAsync();
    }
}

/// <summary>The SUT on its default settings without a database (the endpoints that read none).</summary>
public sealed class PlainSut : SharedSut
{
    protected override Task<SutHost> StartAsync() => SutHost.StartAsync(connectionString: null);
}
