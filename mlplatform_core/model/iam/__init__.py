"""IAM: identity-policy evaluation (evaluate.py) and what each controller needs granted (requirements.py)."""
