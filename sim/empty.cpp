// Keeps the sim library non-empty until its sources land.
