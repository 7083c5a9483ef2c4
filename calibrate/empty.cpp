// Keeps the calibrate library non-empty until its sources land.
