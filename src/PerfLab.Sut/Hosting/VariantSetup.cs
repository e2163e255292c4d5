namespace PerfLab.Sut.Hosting;

public static class VariantSetup
{
    /// <summary>Reads, checks and applies the variant switches; throws InvalidVariantException naming the bad key.</summary>
    public static EffectiveVariants AddVariants(this WebApplicationBuilder builder)
    {
        SutOptions options;
        try
        {
            options = builder.Configuration.GetSection(SutOptions.Section).Get<SutOptions>() ?? new SutOptions();
        }
        catch (InvalidOperationException ex)
        {
            throw new InvalidVariantException([ex.Message]);
        }
        var variants = EffectiveVariants.From(options);
        ApplyThreadPool(variants.ThreadPool);
        builder.Services.AddSingleton(variants);
        return variants;
    }

    private static void ApplyThreadPool(ThreadPoolOptions wanted)
    {
        if (wanted.MinWorkerThreads == 0 && wanted.MinCompletionPortThreads == 0)
        {
            return;
        }
        ThreadPool.GetMinThreads(out var worker, out var io);
        var newWorker = wanted.MinWorkerThreads > 0 ? wanted.MinWorkerThreads : worker;
        var newIo = wanted.MinCompletionPortThreads > 0 ? wanted.MinCompletionPortThreads : io;
        if (!ThreadPool.SetMinThreads(newWorker, newIo))
        {
            ThreadPool.GetMaxThreads(out var maxWorker, out var maxIo);
            throw new InvalidVariantException([
                $"{SutOptions.Section}:ThreadPool could not set the minimum threads to {newWorker}/{newIo} " +
                $"(maximum is {maxWorker}/{maxIo}, and the minimum must not exceed it).",
            ]);
        }
    }
}
