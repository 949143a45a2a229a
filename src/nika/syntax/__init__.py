"""syntax"""
