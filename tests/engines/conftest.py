"""Real engines started once per test session (each test module skips without its engine)."""
import os
import sys

import pytest


@pytest.fixture(scope="session")
def spark():
    """A local[2] SparkSession, small and quiet: 4 shuffle partitions, no UI, 512 MB.

    Python workers run this interpreter (so they import the rankwise under test, through
    the inherited environment); Java 17 or later must be on the PATH or in JAVA_HOME.
    """
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("rankwise-tests")
               .config("spark.sql.shuffle.partitions", "4")
               .config("spark.default.parallelism", "2")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", "512m")
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
