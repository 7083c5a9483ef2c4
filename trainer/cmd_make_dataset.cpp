// vitsim-train make-dataset: a synthetic learnable dataset in CIFAR binary format (no network).
#include <iostream>

#include "clikit/run_app.h"
#include "trainer/commands.h"
#include "trainer/synthetic_dataset.h"

namespace vitsim::trainer {

int cmd_make_dataset(int argc, char** argv) {
  CLI::App app("Writes a synthetic, learnable dataset in the CIFAR-10/100 binary format.", argv[0]);
  SyntheticDatasetOptions o;
  std::string format = "cifar10";
  app.add_option("--out", o.out_dir, "output folder (created)")->required();
  app.add_option("--format", format, "cifar10 | cifar100")
      ->check(CLI::IsMember({"cifar10", "cifar100"}))
      ->capture_default_str();
  app.add_option("--train-images", o.train_images, "training images")->capture_default_str();
  app.add_option("--test-images", o.test_images, "test images")->capture_default_str();
  app.add_option("--seed", o.seed, "random seed")->capture_default_str();
  app.add_option("--noise", o.noise_std, "pixel noise standard deviation, grey levels")
      ->capture_default_str();
  return clikit::run_app(app, argc, argv, [&] {
    o.format = parse_cifar_format(format);
    write_synthetic_dataset(o);
    std::cout << "vitsim-train make-dataset: " << o.train_images << " training and "
              << o.test_images << " test images (" << format << ") in " << o.out_dir << "\n";
    return 0;
  });
}

}  // namespace vitsim::trainer
