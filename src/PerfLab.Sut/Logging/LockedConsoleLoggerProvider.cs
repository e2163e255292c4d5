namespace PerfLab.Sut.Logging;

/// <summary>
/// Seed 004's anti-pattern, on purpose: every message is written to the console inside one process-wide lock and
/// flushed before the lock is released, so all request threads queue behind the slowest write.
/// </summary>
public sealed class LockedConsoleLoggerProvider : ILoggerProvider
{
    private readonly object _gate = new();
    private readonly TextWriter _console = Console.Out;

    public ILogger CreateLogger(string categoryName) => new LockedConsoleLogger(categoryName, this);

    public void Dispose()
    {
    }

    private void Write(string line)
    {
        lock (_gate)
        {
            _console.WriteLine(line);
            _console.Flush();
        }
    }

    private sealed class LockedConsoleLogger(string category, LockedConsoleLoggerProvider provider) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Information;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception,
            Func<TState, Exception?, string> formatter)
        {
            if (!IsEnabled(logLevel))
            {
                return;
            }
            provider.Write($"{DateTime.UtcNow:O} {logLevel} {category}[{eventId.Id}] {formatter(state, exception)}");
        }
    }
}
